/**
 * A kept checkpoint read back into an empty room (`HostedRoom.restoreCheckpoint`): its seats
 * rebuilt by the room's seating, its listing as it was. The checkpoint's shape: room/checkpoint.ts.
 */
import type { RoomCheckpoint } from "../host";
import { RoomStats } from "../roomStats";
import { checkpointGameSeats, checkpointSeats } from "./checkpoint";
import type { RoomBase, RoomWiring } from "./roomWiring";

/**
 * Rebuilds an empty room's seats and listing from a kept checkpoint (`HostedRoom.restoreCheckpoint`);
 * false when the room has seats already or `value` holds none of this room. Seat records that do
 * not read are refused and counted (`errors.seat_record_refused`), never thrown.
 */
export function restoreRoom(base: RoomBase, parts: RoomWiring, value: unknown): boolean {
  const { kind, roomId, stats, recorder, clock } = base;
  if (parts.seats.size > 0) return false;
  const { seats: saved, refused } = checkpointSeats(value, kind, roomId);
  if (refused > 0) {
    RoomStats.bump(stats.errors, "seat_record_refused", refused);
    console.error(`[room ${kind}:${roomId}] ${refused} seat record(s) refused${saved ? "" : "; the checkpoint is not restored"}`);
  }
  if (!saved || saved.length === 0) return false;
  recorder?.restored(value as RoomCheckpoint, clock.now());
  // Listed as it was: a private room stays private, a locked match locked, its metadata kept.
  const cp = value as RoomCheckpoint;
  parts.listing.restore(cp.listing);
  parts.seating.restore(saved, cp.game, checkpointGameSeats(cp, saved));
  return true;
}
