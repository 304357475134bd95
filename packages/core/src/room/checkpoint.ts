/**
 * A room's checkpoint (its shape is part of the host surface, host.ts): taken from the room's
 * seats and its game, and read back, validated, before a restarted room rebuilds its seats
 * (room/seating.ts).
 */
import type { Game } from "../game";
import type { CheckpointSeat, RoomCheckpoint } from "../host";
import { readSeatPlayer } from "../player";
import type { SavedListing } from "../match/roomStatus";
import type { SeatRegistry } from "./seatRegistry";

/**
 * Every seat (`json`: the room's dialect), the room's listing and, with `withGame`, the game's
 * own checkpoint, JSON-able.
 */
export function takeCheckpoint(kind: string, roomId: string, seats: SeatRegistry, json: boolean, game: Game, withGame: boolean, listing: SavedListing): RoomCheckpoint {
  const saved = seats.list.map((seat) => ({ ...seats.ticketFor(seat, json), lastSeq: seat.lastProcessedSeq }));
  const cp: RoomCheckpoint = { v: 1, kind, roomId, savedAt: Date.now(), seats: saved, listing };
  if (withGame && game.checkpoint) cp.game = game.checkpoint();
  return cp;
}

/** The checkpoint's seats when `value` is a checkpoint of this room, else null. Never throws. */
export function checkpointSeats(value: unknown, kind: string, roomId: string): CheckpointSeat[] | null {
  const c = value as Partial<RoomCheckpoint> | null;
  if (!c || typeof c !== "object" || c.v !== 1 || c.kind !== kind || c.roomId !== roomId || !Array.isArray(c.seats)) return null;
  const seats: CheckpointSeat[] = [];
  const ids = new Set<number>();
  for (const s of c.seats as Partial<CheckpointSeat>[]) {
    if (!s || !Number.isInteger(s.playerId) || (s.playerId as number) < 1 || typeof s.token !== "string" || s.token === "") return null;
    if (ids.has(s.playerId as number)) return null;
    ids.add(s.playerId as number);
    const player = readSeatPlayer(s.player);
    seats.push({
      playerId: s.playerId as number,
      token: s.token,
      name: typeof s.name === "string" ? s.name : "",
      json: s.json === true,
      ...(typeof s.identity === "string" ? { identity: s.identity } : {}),
      ...(player ? { player } : {}),
      lastSeq: Number.isInteger(s.lastSeq) && (s.lastSeq as number) >= 0 ? (s.lastSeq as number) : 0,
    });
  }
  return seats;
}
