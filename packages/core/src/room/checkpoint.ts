/**
 * A room's checkpoint (its shape is part of the host surface, host.ts): taken from the room's
 * seats and its game, and read back, validated, before a restarted room rebuilds its seats
 * (room/seating.ts). One seat's record is written and read here too, for the checkpoint and for
 * hosts that keep each seat on its own (room/keptRoom.ts).
 */
import type { Game } from "../game";
import type { CheckpointSeat, RoomCheckpoint } from "../host";
import { SyncWorld } from "../sync/syncWorld";
import { WorldChain } from "../sync/worldCheckpoint";
import type { SavedListing } from "../match/roomStatus";
import type { Seat } from "./clientLink";
import type { SeatRegistry } from "./seatRegistry";

/** What one seat brings back after a restart (`json`: the room's dialect): the one place a seat's record is made. */
export function seatRecord(seats: SeatRegistry, seat: Seat, json: boolean): CheckpointSeat {
  return { ...seats.ticketFor(seat, json), lastSeq: seat.lastProcessedSeq };
}

/** A seat record read back (see {@link seatRecord}), or null when `value` is not one. Never throws. */
export function readCheckpointSeat(value: unknown): CheckpointSeat | null {
  if (!value || typeof value !== "object") return null;
  // Fields this reader does not know ride along: a seat's shape grows in one place (seatRecord).
  const { playerId, token, name, json, identity, lastSeq, ...rest } = value as Partial<CheckpointSeat>;
  if (!Number.isInteger(playerId) || (playerId as number) < 1 || typeof token !== "string" || token === "") return null;
  return {
    ...rest,
    playerId: playerId as number,
    token,
    name: typeof name === "string" ? name : "",
    json: json === true,
    ...(typeof identity === "string" ? { identity } : {}),
    lastSeq: Number.isInteger(lastSeq) && (lastSeq as number) >= 0 ? (lastSeq as number) : 0,
  };
}

/** The chain a room keeps its game's world by (a game whose binary sync names a `SyncWorld`), or null. */
export function worldChainFor(game: Game): WorldChain | null {
  return game.sync.mode === "binary" && game.sync.world instanceof SyncWorld ? new WorldChain() : null;
}

/** What {@link takeCheckpoint} reads. */
export interface CheckpointSource {
  kind: string;
  roomId: string;
  seats: SeatRegistry;
  /** The room's dialect is JSON. */
  json: boolean;
  game: Game;
  /** Whether the game's own checkpoint goes in. */
  withGame: boolean;
  listing: SavedListing;
  /**
   * The chain the game's world is kept by when the checkpoint is one of a series a host keeps
   * piece by piece (see host.ts `HostedRoom.checkpoint`); null: the world goes whole.
   */
  chain: WorldChain | null;
}

/**
 * Every seat, the room's listing and, with `withGame`, the game's own checkpoint, JSON-able; with
 * a chain, the game's world in it is the chain's next piece (`worldPiece` says which).
 */
export function takeCheckpoint(src: CheckpointSource): RoomCheckpoint {
  const { seats, json, game } = src;
  const saved = seats.list.map((seat) => seatRecord(seats, seat, json));
  const cp: RoomCheckpoint = { v: 1, kind: src.kind, roomId: src.roomId, savedAt: Date.now(), seats: saved, listing: src.listing };
  if (!src.withGame || !game.checkpoint) return cp;
  const chain = src.chain;
  const world = chain && game.sync.mode === "binary" ? (game.sync.world as SyncWorld) : null;
  const taken = chain?.taken ?? 0;
  if (world) world.chain = chain;
  try {
    cp.game = game.checkpoint();
  } finally {
    if (world) world.chain = null;
  }
  if (chain && chain.taken !== taken) cp.worldPiece = chain.lastPiece;
  return cp;
}

/** The checkpoint's seats when `value` is a checkpoint of this room, else null. Never throws. */
export function checkpointSeats(value: unknown, kind: string, roomId: string): CheckpointSeat[] | null {
  const c = value as Partial<RoomCheckpoint> | null;
  if (!c || typeof c !== "object" || c.v !== 1 || c.kind !== kind || c.roomId !== roomId || !Array.isArray(c.seats)) return null;
  const seats: CheckpointSeat[] = [];
  const ids = new Set<number>();
  for (const s of c.seats) {
    const seat = readCheckpointSeat(s);
    if (!seat || ids.has(seat.playerId)) return null;
    ids.add(seat.playerId);
    seats.push(seat);
  }
  return seats;
}

/**
 * The players the checkpoint's game state holds: its `gameSeats` when it names them (a host that
 * keeps seats apart from the game's state, room/keptRoom.ts), else every seat of it.
 */
export function checkpointGameSeats(value: RoomCheckpoint, seats: readonly CheckpointSeat[]): number[] {
  const named = value.gameSeats;
  return Array.isArray(named) && named.every((id) => Number.isInteger(id)) ? named : seats.map((s) => s.playerId);
}
