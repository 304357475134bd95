import type { JoinOptionValues } from "@tikron/protocol";
import { playerRecord, type Player, type PlayerClaims } from "../player";

/**
 * A {@link Player} record for calling a game's `join`, `reconnected` or `restore` directly (a
 * game's own unit tests, tools driving its rules), as a room would hand it: frozen, identity
 * `test-<playerId>` unless given, no claims or options unless given.
 */
export function testPlayer<O = JoinOptionValues>(
  playerId: number,
  name = "",
  parts: { identity?: string; claims?: PlayerClaims; options?: O } = {},
): Player<O> {
  return playerRecord(playerId, name, parts.identity ?? `test-${playerId}`, parts.claims ?? {}, (parts.options ?? {}) as JoinOptionValues) as Player<unknown> as Player<O>;
}
