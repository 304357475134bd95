import type { GameParamOverrides } from "@tikron/protocol";
import type { Game } from "./game";
import type { MatchmakingSpec } from "./match/matchmakingSpec";
import type { BotSpec } from "./room/bots";
import type { RoomOptions } from "./roomOptions";

/**
 * Game-level knobs a room may be created with (world size, AOI radius); DEV_MODE join
 * overrides reach here. The shape is the protocol's, since join URLs carry it.
 */
export type GameParams = GameParamOverrides;

/**
 * How an adapter creates a room of one kind: the kind's default options and a factory. The
 * registry of definitions is the only thing a host needs to know about games.
 */
export interface GameDefinition {
  /** The room kind this definition creates (the `:kind` of `/rooms/:kind/:id`). */
  kind: string;
  /** Defaults layered over {@link defaultRoomOptions}. */
  defaults: Partial<RoomOptions>;
  /** Creates the game of one new room from its resolved options and DEV_MODE params. */
  create(options: RoomOptions, params: GameParams): Game;
  /** Bot players for this kind (absent: rooms of this kind have no bots). */
  bots?: BotSpec;
  /** How players are matched to rooms of this kind (filters, metadata, queue; see docs/matchmaking.md). */
  matchmaking?: MatchmakingSpec;
}
