/**
 * What a host keeps of a room in a key-value storage (`KeptRoom`), laid out so that a join
 * writes one small value and a ticking world can be kept every second by writing only what
 * changed:
 *
 * - `room:seat:<playerId>`: one seat's record (room/checkpoint.ts `seatRecord`), written when
 *   the seat is taken (`RoomHooks.onSeatRecord`, before its welcome), removed when it is freed;
 * - `room:cp:<n>`: the room's checkpoints as the pieces of a chain (`HostedRoom.checkpoint` with
 *   `next`): piece 0 a base, piece n the next after piece n − 1, each with the seats' last
 *   applied seqs, the listing and the game's state, whose world is the matching piece of the
 *   game world's chain (sync/worldCheckpoint.ts `WorldChain`). A game without such a world is
 *   kept whole in piece 0 every time. A piece that would hold nothing new (the world unchanged
 *   since the last piece written, the seats' seqs, the listing and the game's other state the
 *   same) is not written: the chain's next piece takes its place in storage;
 * - `room:made`: what the room was made with (roomMadeWith.ts: a matchmaker's `cap=8`), written
 *   with the first seat's record when the room was made with any override, so a restart makes
 *   it the same room again.
 *
 * A chain's pieces carry its generation: a new base starts a new one, and later pieces of an
 * older chain still under their keys are not read (they are overwritten as the new chain grows,
 * and removed with the rest once the room has no seats). Read back, every kept seat comes back
 * with the last checkpoint's state; a seat taken after it gets a fresh entity, a player freed
 * after it leaves the game (`RoomCheckpoint.gameSeats`).
 *
 * Runtime-agnostic: values are JSON text; the Cloudflare host writes them to its object's storage.
 */
import type { CheckpointSeat, CheckpointWorld, RoomCheckpoint } from "../host";
import { readRoomMadeWith, type RoomMadeWith } from "../roomMadeWith";
import { findWorldPiece, joinWorldChain } from "../sync/worldCheckpoint";
import { readCheckpointSeat } from "./checkpoint";

/** Key prefix of the seat records. */
export const KEPT_SEAT_PREFIX = "room:seat:";
/** Key prefix of the checkpoint pieces. */
export const KEPT_PIECE_PREFIX = "room:cp:";
/** Key of what the room was made with (`RoomCheckpoint.madeWith`). */
export const KEPT_MADE_WITH_KEY = "room:made";

/** One write a host makes: `value` (JSON text) under `key`, or the key removed when null. */
export interface KeptWrite {
  /** The storage key. */
  key: string;
  /** JSON text, or null: remove the key. */
  value: string | null;
}

/** A checkpoint piece as kept (JSON): the checkpoint without its seat records, their seqs in pairs. */
interface KeptPiece extends Omit<RoomCheckpoint, "v" | "seats" | "gameSeats"> {
  v: 2;
  /** The chain's generation (every base starts a new one). */
  gen: number;
  /** Its place in the chain (0: a base). */
  piece: number;
  /** The seats when it was taken: player id, last applied seq, pair after pair. */
  seats: number[];
}

/** A kept value read back: JSON text parsed, anything else as it is; undefined when it does not parse. */
function parsed(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A piece's JSON without what differs from one piece to the next whatever the room did (its
 * time, its place in the chain) nor its world's changes: two pieces with the same text hold the
 * same seats, listing and game state but for the world.
 */
function contentOf(p: KeptPiece): string {
  const world = findWorldPiece(p.game);
  const held = world ? { entities: world.entities, piece: world.piece } : null;
  if (world) {
    world.entities = "";
    world.piece = 0;
  }
  try {
    return JSON.stringify({ ...p, savedAt: 0, gen: 0, piece: 0, ...(p.worldPiece === undefined ? {} : { worldPiece: 0 }) });
  } finally {
    if (world && held) Object.assign(world, held);
  }
}

function isPiece(v: unknown): v is KeptPiece {
  const p = v as Partial<KeptPiece> | null;
  return !!p && typeof p === "object" && p.v === 2 && Number.isInteger(p.gen) && Number.isInteger(p.piece) && Array.isArray(p.seats);
}

/**
 * The keys and values of one room as a host keeps them (see the module comment): the writes for
 * a seat and for a checkpoint, what to remove once the room has no seats, and the room read back.
 * One per room's host; it remembers which keys it wrote or found, and the chain's generation.
 */
export class KeptRoom {
  #gen = 0;
  /** The piece the next checkpoint must be (it continues the chain in storage), or 0. */
  #next = 0;
  /** Whether the next checkpoint must start a chain (nothing of one kept, or a write was lost). */
  #needsBase = true;
  readonly #seatKeys = new Set<number>();
  readonly #pieceKeys = new Set<number>();
  /** Pieces of the world's chain not written since its base (they held nothing new): a chain piece's key is its index less these. */
  #skipped = 0;
  /**
   * The last piece written, as the text written (null: none, or storage may not hold it): text,
   * not the value, since a game's checkpoint may hand out state it goes on changing.
   */
  #lastText: string | null = null;
  /** Its content ({@link contentOf}), read off {@link #lastText} when a piece is first compared with it. */
  #lastContent: string | null = null;
  #unchanged = 0;
  /** What the room being kept was made with, as JSON text (null: no overrides). */
  #madeWith: string | null = null;
  /** What storage holds under {@link KEPT_MADE_WITH_KEY} (null: nothing). */
  #madeWithKept: string | null = null;

  /** Checkpoints not written because they held nothing new (see {@link piece}). */
  get unchanged(): number {
    return this.#unchanged;
  }

  /** How the host takes the next checkpoint (`HostedRoom.checkpoint`): a base until a chain is kept, then `next`. */
  get world(): CheckpointWorld {
    return this.#needsBase ? "base" : "next";
  }

  /** A kept piece may be lost (a write failed): the next checkpoint starts a new chain. */
  lost(): void {
    this.#needsBase = true;
    this.#lastText = this.#lastContent = null;
  }

  /** The room being kept was made with `madeWith` (undefined: no overrides); kept with its next seat record. */
  madeWith(madeWith: RoomMadeWith | undefined): void {
    this.#madeWith = madeWith ? JSON.stringify(madeWith) : null;
  }

  /**
   * The write that keeps what the room was made with ({@link madeWith}) when storage does not hold
   * it yet, else null; a host writes it with a seat's record, so a kept seat never comes back
   * without it.
   */
  madeWithWrite(): KeptWrite | null {
    if (this.#madeWith === this.#madeWithKept) return null;
    this.#madeWithKept = this.#madeWith;
    return { key: KEPT_MADE_WITH_KEY, value: this.#madeWith };
  }

  /** The write of a seat's record (null: the seat was freed). */
  seat(playerId: number, record: CheckpointSeat | null): KeptWrite {
    if (record) this.#seatKeys.add(playerId);
    else this.#seatKeys.delete(playerId);
    return { key: KEPT_SEAT_PREFIX + playerId, value: record ? JSON.stringify(record) : null };
  }

  /**
   * The write of checkpoint `cp`, taken with {@link world}: its seats as seqs (their records are
   * kept apart), every other field as it is (a host's own fields ride along); null when it holds
   * nothing the last piece written does not (see the module comment; counted in {@link unchanged}).
   * Throws when `cp` does not continue the kept chain (taken otherwise than {@link world} says).
   */
  piece(cp: RoomCheckpoint): KeptWrite | null {
    const taken = cp.worldPiece ?? 0;
    if (taken === 0) this.#skipped = 0;
    // Its place in storage: the chain's pieces not written leave no gap.
    const index = taken === 0 ? 0 : taken - this.#skipped;
    if (index !== 0 && (this.#needsBase || index !== this.#next)) throw new Error(`checkpoint piece ${taken} does not continue the kept chain (next ${this.#needsBase ? "a base" : this.#next + this.#skipped})`);
    const { v: _v, seats, gameSeats: _g, refusedSeats: _r, madeWith: _m, ...rest } = cp;
    const seqs: number[] = [];
    for (const s of seats) seqs.push(s.playerId, s.lastSeq);
    const world = cp.worldPiece === undefined ? null : findWorldPiece(rest.game);
    if (world) world.piece = index;
    const value: KeptPiece = { ...rest, ...(world ? { worldPiece: index } : {}), v: 2, gen: this.#gen, piece: index, seats: seqs };
    // Nothing new: a chain's later piece whose world did not change, or a game kept whole the same as before.
    if (this.#lastText !== null && (cp.worldPiece === undefined || (index > 0 && world?.entities === "")) && contentOf(value) === this.lastContent(this.#lastText)) {
      if (index > 0) this.#skipped++;
      this.#unchanged++;
      return null;
    }
    if (index === 0) value.gen = ++this.#gen;
    this.#pieceKeys.add(index);
    this.#next = cp.worldPiece === undefined ? 0 : index + 1;
    this.#needsBase = false;
    const text = JSON.stringify(value);
    this.#lastText = text;
    this.#lastContent = null;
    return { key: KEPT_PIECE_PREFIX + index, value: text };
  }

  /** The content of the last piece written, `text` (read once, then kept until the next write). */
  private lastContent(text: string): string {
    return (this.#lastContent ??= contentOf(JSON.parse(text) as KeptPiece));
  }

  /** Removes every key written or found: nothing of the room is left. The next checkpoint starts a chain. */
  clear(): KeptWrite[] {
    const out: KeptWrite[] = [];
    for (const id of this.#seatKeys) out.push({ key: KEPT_SEAT_PREFIX + id, value: null });
    for (const n of this.#pieceKeys) out.push({ key: KEPT_PIECE_PREFIX + n, value: null });
    if (this.#madeWithKept !== null) out.push({ key: KEPT_MADE_WITH_KEY, value: null });
    this.#seatKeys.clear();
    this.#pieceKeys.clear();
    this.#madeWithKept = null;
    this.lost();
    return out;
  }

  /**
   * The room as kept under the two prefixes (`entries`: every key found with its value), or null
   * when nothing is. Its `kind` and `roomId` are the last piece's, empty when only seats are kept
   * (the host's own room). A seat record that does not read (core `readCheckpointSeat`: every
   * field checked and bounded, its player record whole) is left out and named in `refusedSeats`
   * (the room counts it); a chain that does not join is left out with a warning: the seats that
   * do come back, the game starts fresh.
   */
  read(entries: ReadonlyMap<string, unknown>): RoomCheckpoint | null {
    const records: CheckpointSeat[] = [];
    let refused = 0;
    const pieces = new Map<number, KeptPiece>();
    let madeWith: RoomMadeWith | null = null;
    for (const [key, raw] of entries) {
      if (key === KEPT_MADE_WITH_KEY) {
        this.#madeWithKept = typeof raw === "string" ? raw : JSON.stringify(raw);
        madeWith = readRoomMadeWith(parsed(raw));
        if (!madeWith) console.warn(`[kept room] ${key} does not read; the room comes back with its kind's defaults`);
      } else if (key.startsWith(KEPT_SEAT_PREFIX)) {
        const id = Number(key.slice(KEPT_SEAT_PREFIX.length));
        const seat = readCheckpointSeat(parsed(raw));
        if (Number.isInteger(id)) this.#seatKeys.add(id);
        if (seat && seat.playerId === id) records.push(seat);
        else {
          refused++;
          console.warn(`[kept room] seat record ${key} does not read; left out`);
        }
      } else if (key.startsWith(KEPT_PIECE_PREFIX)) {
        const n = Number(key.slice(KEPT_PIECE_PREFIX.length));
        if (Number.isInteger(n)) this.#pieceKeys.add(n);
        const p = parsed(raw);
        if (isPiece(p) && p.piece === n) {
          pieces.set(n, p);
          this.#gen = Math.max(this.#gen, p.gen);
        }
      }
    }
    const chain = this.chainOf(pieces);
    if (chain.length === 0 && records.length === 0 && refused === 0) return null;
    records.sort((a, b) => a.playerId - b.playerId);
    const last = chain[chain.length - 1];
    const extra = { ...(refused > 0 ? { refusedSeats: refused } : {}), ...(madeWith ? { madeWith } : {}) };
    if (!last) return { v: 1, kind: "", roomId: "", savedAt: 0, seats: records, ...extra };
    const seqs = new Map<number, number>();
    for (let i = 0; i + 1 < last.seats.length; i += 2) seqs.set(last.seats[i]!, last.seats[i + 1]!);
    const { v: _v, gen: _gen, piece: _piece, seats: _seats, ...rest } = last;
    const seats = records.map((s) => ({ ...s, lastSeq: seqs.get(s.playerId) ?? s.lastSeq }));
    const cp: RoomCheckpoint = { ...rest, v: 1, seats, ...extra };
    if (last.game !== undefined) {
      cp.gameSeats = [...seqs.keys()];
      if (last.worldPiece !== undefined && !this.joinWorld(chain, cp)) {
        delete cp.game;
        delete cp.gameSeats;
      }
    }
    delete cp.worldPiece;
    return cp;
  }

  /** The kept chain: the base, then pieces 1, 2, … of its generation, as far as they go. */
  private chainOf(pieces: ReadonlyMap<number, KeptPiece>): KeptPiece[] {
    const base = pieces.get(0);
    if (!base) return [];
    const chain = [base];
    for (let n = 1; ; n++) {
      const p = pieces.get(n);
      if (!p || p.gen !== base.gen || base.worldPiece === undefined) break;
      chain.push(p);
    }
    return chain;
  }

  /** Puts the chain's world, read back whole, in place of the last piece's world in `cp.game`; false when it does not join. */
  private joinWorld(chain: readonly KeptPiece[], cp: RoomCheckpoint): boolean {
    try {
      const worlds = chain.map((p, i) => {
        const w = findWorldPiece(i === chain.length - 1 ? cp.game : p.game);
        if (!w) throw new Error(`piece ${i} holds no world`);
        return w;
      });
      const whole = joinWorldChain(worlds);
      const at = worlds[worlds.length - 1]!;
      delete at.piece;
      Object.assign(at, whole);
      return true;
    } catch (e) {
      console.warn(`[kept room] the kept world does not join (${e instanceof Error ? e.message : String(e)}); the game starts fresh`);
      return false;
    }
  }
}
