import type { SeatTicket } from "./seatRegistry";

/**
 * What a room persists so a restart loses nothing a player would notice: every seat (id, token,
 * name, bound identity, last applied seq) and, when the game implements `checkpoint()`, the
 * game's own state. JSON-able; hosts store it as they like (the Cloudflare adapter in Durable
 * Object storage) and hand it back to `Room.restoreCheckpoint` before any socket is seated.
 */
export interface RoomCheckpoint {
  /** Format version. */
  v: 1;
  /** The room's kind and id: a checkpoint is restored only into the same room. */
  kind: string;
  /** See {@link kind}. */
  roomId: string;
  /** Wall-clock ms when it was taken (for operators; the room does not read it). */
  savedAt: number;
  /** Every seat, connected or held, when it was taken. */
  seats: CheckpointSeat[];
  /** The game's `checkpoint()`, absent when the game has none. */
  game?: unknown;
}

/** One seat in a {@link RoomCheckpoint}. */
export interface CheckpointSeat extends SeatTicket {
  /** Highest input seq applied: the reconnect's welcome tells the client (`lastSeq`). */
  lastSeq: number;
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
    seats.push({
      playerId: s.playerId as number,
      token: s.token,
      name: typeof s.name === "string" ? s.name : "",
      json: s.json === true,
      ...(typeof s.identity === "string" ? { identity: s.identity } : {}),
      lastSeq: Number.isInteger(s.lastSeq) && (s.lastSeq as number) >= 0 ? (s.lastSeq as number) : 0,
    });
  }
  return seats;
}
