/**
 * Who joins a `ttt-json` room, as clients declare it: the join option a player may choose (the
 * mark it wants to play) and the room message that tells a player who the room has it as.
 * Declarations only (clients import them through `@tikron/games/schemas`).
 */
import { defineJoinOptions, joinOption, type PlayerOptions } from "@tikron/protocol";
import type { Mark } from "./tttRules";

/**
 * `ttt-json`'s join options: `mark`, the seat a player asks for (`"X"` or `"O"`). A free seat of
 * that mark is taken; when it is taken already the game refuses the join (`join_refused`, code
 * `mark_taken`). Without it the player takes the first free seat, or watches.
 */
export const tttJoinOptions = defineJoinOptions({
  mark: joinOption.oneOf(["X", "O"]),
});

/** The join options a `ttt-json` player's record holds (`Player.options`). */
export type TttPlayerOptions = PlayerOptions<(typeof tttJoinOptions)["fields"]>;

/** The answer to `whoami`: the room's record of the asking player, as the game was handed it. */
export interface TttWhoAmI {
  /** The seat's player id. */
  playerId: number;
  /** The name its hello carried. */
  name: string;
  /** The verified identity (a ticket's player id, `jwt:<sub>`, a DEV_MODE `guest-…` or `anon-…`). */
  identity: string;
  /** The sign-in claims the deployment hands games (`AUTH_CLAIMS`). */
  claims: Record<string, unknown>;
  /** The join options it chose. */
  options: { mark?: Mark };
}

/** `ttt-json`'s room messages. */
export interface TttMessages {
  /** Who the room has the asking player as (its `Player` record). */
  whoami: { request: void; response: TttWhoAmI };
}
