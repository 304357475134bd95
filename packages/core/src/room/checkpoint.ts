/**
 * A room's checkpoint (its shape is part of the host surface, host.ts): taken from the room's
 * seats and its game, and read back, validated, before a restarted room rebuilds its seats
 * (room/seating.ts). One seat's record is written and read here too, for the checkpoint and for
 * hosts that keep each seat on its own (room/keptRoom.ts).
 */
import type { Game } from "../game";
import type { CheckpointSeat, RoomCheckpoint } from "../host";
import { readKeptSeatPlayer } from "../player";
import { SyncWorld } from "../sync/syncWorld";
import { WorldChain } from "../sync/worldCheckpoint";
import { TICKET_PLAYER_ID_PATTERN } from "../ticket";
import type { SavedListing } from "../match/roomStatus";
import type { Seat } from "./clientLink";
import type { SeatRegistry } from "./seatRegistry";

/** What one seat brings back after a restart (`json`: the room's dialect): the one place a seat's record is made. */
export function seatRecord(seats: SeatRegistry, seat: Seat, json: boolean): CheckpointSeat {
  return { ...seats.ticketFor(seat, json), lastSeq: seat.lastProcessedSeq };
}

/** Most UTF-16 units of a kept seat's reconnect token (the room makes 32). */
const MAX_SEAT_TOKEN_LENGTH = 128;
/** Most UTF-16 units of a kept seat's name (a hello's name is cut to this). */
export const MAX_SEAT_NAME_LENGTH = 32;

/**
 * A seat record read back (see {@link seatRecord}), or null when `value` is not one: every field
 * of the shape checked and bounded (a token of at most 128 units, a name of at most 32, a bound
 * identity a verified one could be, the player record whole: `readKeptSeatPlayer`); fields the
 * shape does not name are dropped. Never throws.
 */
export function readCheckpointSeat(value: unknown): CheckpointSeat | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const { playerId, token, name, json, identity, player, lastSeq } = value as Partial<CheckpointSeat>;
  if (!Number.isSafeInteger(playerId) || (playerId as number) < 1) return null;
  if (typeof token !== "string" || token === "" || token.length > MAX_SEAT_TOKEN_LENGTH) return null;
  if (name !== undefined && (typeof name !== "string" || name.length > MAX_SEAT_NAME_LENGTH)) return null;
  if (identity !== undefined && (typeof identity !== "string" || !TICKET_PLAYER_ID_PATTERN.test(identity))) return null;
  const kept = readKeptSeatPlayer(player);
  if (kept === null) return null;
  return {
    playerId: playerId as number,
    token,
    name: name ?? "",
    json: json === true,
    ...(identity !== undefined ? { identity } : {}),
    ...(kept ? { player: kept } : {}),
    lastSeq: Number.isSafeInteger(lastSeq) && (lastSeq as number) >= 0 ? (lastSeq as number) : 0,
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

/** What {@link checkpointSeats} read. */
export interface CheckpointSeatsRead {
  /** The checkpoint's seats; null when `value` is not a checkpoint of this room, or one of its seats does not read. */
  seats: CheckpointSeat[] | null;
  /**
   * Seat records refused: those of this room's checkpoint that do not read or repeat a player id
   * (the checkpoint is then refused whole), plus those its host left out (`refusedSeats`).
   */
  refused: number;
}

/**
 * The checkpoint's seats when `value` is a checkpoint of this room (see {@link CheckpointSeatsRead}),
 * each read by {@link readCheckpointSeat}. Never throws.
 */
export function checkpointSeats(value: unknown, kind: string, roomId: string): CheckpointSeatsRead {
  const c = value as Partial<RoomCheckpoint> | null;
  if (!c || typeof c !== "object" || c.v !== 1 || c.kind !== kind || c.roomId !== roomId || !Array.isArray(c.seats)) return { seats: null, refused: 0 };
  const leftOut = Number.isSafeInteger(c.refusedSeats) && (c.refusedSeats as number) > 0 ? (c.refusedSeats as number) : 0;
  const seats: CheckpointSeat[] = [];
  const ids = new Set<number>();
  let bad = 0;
  for (const s of c.seats) {
    const seat = readCheckpointSeat(s);
    if (!seat || ids.has(seat.playerId)) bad++;
    else {
      ids.add(seat.playerId);
      seats.push(seat);
    }
  }
  return { seats: bad > 0 ? null : seats, refused: leftOut + bad };
}

/**
 * The players the checkpoint's game state holds: its `gameSeats` when it names them (a host that
 * keeps seats apart from the game's state, room/keptRoom.ts), else every seat of it.
 */
export function checkpointGameSeats(value: RoomCheckpoint, seats: readonly CheckpointSeat[]): number[] {
  const named = value.gameSeats;
  return Array.isArray(named) && named.every((id) => Number.isInteger(id)) ? named : seats.map((s) => s.playerId);
}
