/**
 * `LogRecorder`, the recorder a room's match is written by (the room's seam:
 * matchRecorder.ts): each call becomes one record of the match log (matchLog.ts) in one
 * growing buffer, sealed in pieces for the host's {@link RecordingSink}. An input is written as
 * its bytes arrived, with nothing allocated and no JSON (a JSON room's inputs are JSON already).
 */
import { FrameWriter } from "@tikron/protocol";
import type { Player } from "../player";
import type { GatedLink, MatchRecorder, RecordedInput, RecordedRoom, StreamGateway } from "./matchRecorder";
import { HASH_START, hashBytes, hashInt, hashText, tokenStandIn } from "./digest";
import { HEADER_FRAMES, HEADER_JSON, RecordKind, TIME_ABSOLUTE, TIME_DELTA, writeMatchLogHeader, type MatchLogHeader } from "./matchLog";
import { DEFAULT_RECORD_SPEC, type MatchSummary, type RecordSpec, type RecordingSink } from "./recording";

/** What a room was made from, as `createRoom` hands it to its recorder. */
export interface MatchStart {
  /** The room's kind. */
  kind: string;
  /** The room's id. */
  roomId: string;
  /** The seed handed to the game's `create`. */
  seed: number;
  /** The resolved room options as the game was made with them (JSON text: the room may change its rates later). */
  options: string;
  /** The game params, JSON text. */
  params: string;
  /** The game's store the room starts with, JSON text ("" without one). */
  store: string;
  /** How a matchmaker listed the room, JSON text ("" without one). */
  listing: string;
}

/** Room time between two sealed pieces of the log: what a crash can lose. */
export const CHUNK_MS = 5_000;
/** Bytes past which a piece is sealed at once. */
export const CHUNK_BYTES = 256 * 1024;

/** A fresh match id: the start time in base 36 (so ids sort by time), then 40 random bits. */
export function newMatchId(startedAt: number): string {
  const r = new Uint8Array(5);
  crypto.getRandomValues(r);
  let rand = "";
  for (const b of r) rand += b.toString(16).padStart(2, "0");
  return `${Math.max(0, Math.floor(startedAt)).toString(36).padStart(9, "0")}-${rand}`;
}

/**
 * A checkpoint as a log keeps it: no wall-clock time, and no reconnect token. A restored one's
 * tokens are replaced by their stand-ins (a socket adopted later presents its own, which must
 * still match); a checkpoint the room took has none at all (a replayed room's new seats draw
 * tokens of their own, which nothing the game sees depends on).
 */
function loggedCheckpoint(cp: object, tokens: "stand-in" | "none"): string {
  const c = cp as { seats?: { token?: unknown }[] };
  const seats = Array.isArray(c.seats)
    ? c.seats.map((s) => (typeof s?.token === "string" ? { ...s, token: tokens === "none" ? "" : tokenStandIn(s.token) } : s))
    : c.seats;
  return JSON.stringify({ ...cp, savedAt: 0, seats });
}

/**
 * Writes one room's match log (see the module comment). Made by `createRoom` for a recorded
 * kind; `@tikron/core/replay`'s replay extends it to compare what the room it re-runs records.
 */
export class LogRecorder implements MatchRecorder {
  /** The log's bytes not yet handed to the sink. */
  protected readonly w = new FrameWriter(16 * 1024);
  /** The room, from {@link begin}. */
  protected room: RecordedRoom | null = null;
  /** The match's id (made at {@link begin} unless given). */
  matchId: string;
  #epoch = 0;
  #lastTime = 0;
  #json = false;
  #frames = true;
  #framesHash = HASH_START;
  #chunks = 0;
  #sealedBytes = 0;
  #lastSealAt = 0;
  #lastCheckpointAt = -Infinity;
  #done = false;
  readonly #players = new Set<number>();
  readonly #spec: Required<RecordSpec>;

  constructor(
    protected readonly start: MatchStart,
    private readonly sink: RecordingSink | null,
    spec: RecordSpec = {},
    matchId?: string,
  ) {
    this.#spec = { ...DEFAULT_RECORD_SPEC, ...spec };
    this.matchId = matchId ?? "";
  }

  /** Whether the log has ended (nothing more is recorded). */
  get done(): boolean {
    return this.#done;
  }

  /** The header this recorder writes, once its room began. */
  protected header(room: RecordedRoom): MatchLogHeader {
    const s = this.start;
    const flags = (room.framesSent ? HEADER_FRAMES : 0) | (room.game.sync.mode === "json" ? HEADER_JSON : 0);
    return { matchId: this.matchId, kind: s.kind, roomId: s.roomId, startedAt: room.epoch, seed: s.seed, flags, options: s.options, params: s.params, store: s.store, listing: s.listing };
  }

  begin(room: RecordedRoom): void {
    this.room = room;
    this.#epoch = room.epoch;
    if (this.matchId === "") this.matchId = newMatchId(room.epoch);
    const header = this.header(room);
    this.#json = (header.flags & HEADER_JSON) !== 0;
    this.#frames = (header.flags & HEADER_FRAMES) !== 0;
    writeMatchLogHeader(this.w, header);
    this.headerWritten();
  }

  joined(player: Player, bound: boolean, bot: boolean, now: number): void {
    if (this.#done) return;
    const at = this.#open(RecordKind.Join, now);
    this.w.varuint(player.playerId).string(player.name).u8((bound ? 1 : 0) | (bot ? 2 : 0));
    this.w.string(player.identity).string(JSON.stringify(player.claims)).string(JSON.stringify(player.options));
    this.#players.add(player.playerId);
    this.#close(at);
  }

  reconnected(playerId: number, now: number): void {
    this.#seatRecord(RecordKind.Reconnect, playerId, now);
  }

  disconnected(playerId: number, now: number): void {
    this.#seatRecord(RecordKind.Disconnect, playerId, now);
  }

  left(playerId: number, now: number): void {
    this.#seatRecord(RecordKind.Leave, playerId, now);
  }

  adopted(ticket: object, now: number): void {
    if (this.#done) return;
    const t = ticket as { token?: unknown; playerId?: unknown };
    if (typeof t.playerId === "number") this.#players.add(t.playerId);
    this.#text(RecordKind.Adopt, JSON.stringify(typeof t.token === "string" ? { ...ticket, token: tokenStandIn(t.token) } : ticket), now);
  }

  restored(checkpoint: object, now: number): void {
    if (this.#done) return;
    const seats = (checkpoint as { seats?: { playerId?: unknown }[] }).seats;
    if (Array.isArray(seats)) for (const s of seats) if (typeof s?.playerId === "number") this.#players.add(s.playerId);
    this.#text(RecordKind.Restore, loggedCheckpoint(checkpoint, "stand-in"), now);
  }

  inputs(playerId: number, entries: readonly RecordedInput[], count: number, now: number): void {
    if (this.#done) return;
    const w = this.w;
    const at = this.#open(this.#json ? RecordKind.JsonInputs : RecordKind.Inputs, now);
    w.varuint(playerId).varuint(count);
    for (let i = 0; i < count; i++) {
      const e = entries[i]!;
      w.varuint(e.seq);
      if (this.#json) {
        w.string(JSON.stringify(e.payload) ?? "null");
      } else {
        const p = e.payload as Uint8Array;
        w.varuint(p.length).bytes(p);
      }
    }
    this.#close(at);
  }

  message(playerId: number, type: string, json: string, now: number): void {
    if (this.#done) return;
    const at = this.#open(RecordKind.Message, now);
    this.w.varuint(playerId).string(type).string(json);
    this.#close(at);
  }

  tick(k: number, now: number): void {
    if (this.#done) return;
    const at = this.#open(RecordKind.Tick, now);
    this.w.varuint(k);
    this.#close(at);
  }

  slice(now: number): void {
    if (this.#done) return;
    this.#close(this.#open(RecordKind.Slice, now));
  }

  deferred(now: number): void {
    if (this.#done) return;
    this.#close(this.#open(RecordKind.Deferred, now));
  }

  sent(playerId: number, data: Uint8Array | string): void {
    if (this.#done || !this.#frames) return;
    const h = hashInt(this.#framesHash, playerId);
    this.#framesHash = typeof data === "string" ? hashText(h, data) : hashBytes(h, data);
  }

  flushed(now: number): void {
    if (this.#done) return;
    const at = this.#open(RecordKind.Flushed, now);
    this.w.u32(this.worldDigest()).u32(this.#framesHash >>> 0);
    this.#framesHash = HASH_START;
    this.#close(at);
    if (this.#done) return;
    const t = now - this.#epoch;
    if (this.checkpointDue(t)) this.#text(RecordKind.Checkpoint, loggedCheckpoint(this.room!.checkpoint(), "none"), now);
    // A turn-based room seals after every flush: its flushes are its moves, few and far apart,
    // and its object may hibernate between two of them, losing what was not sealed.
    if (!this.#done && (t - this.#lastSealAt >= CHUNK_MS || !this.room!.game.ticking)) this.#seal(t);
  }

  /**
   * Whether the flush that just ended at room time `t` is followed by a checkpoint: the first
   * flush's, then every `checkpointEveryMs` (a replay's recorder takes one where its log has one).
   */
  protected checkpointDue(t: number): boolean {
    const every = this.#spec.checkpointEveryMs;
    if (this.#lastCheckpointAt !== -Infinity && (every === 0 || t - this.#lastCheckpointAt < every)) return false;
    this.#lastCheckpointAt = t;
    return true;
  }

  gate<L extends GatedLink>(sockets: StreamGateway<L>): StreamGateway<L> {
    // Made once per room: nothing is allocated per flush.
    const gate: StreamGateway<L> = {
      streamAllowed: (link, now, readRuntime) => {
        const allowed = sockets.streamAllowed(link, now, readRuntime);
        // Held back, not closed (a close holds the seat: that is its own record).
        if (!allowed && !link.closed && link.seat) this.withheld(link.seat.playerId, now);
        return allowed;
      },
      slowConsumer: (link) => sockets.slowConsumer(link),
    };
    return gate;
  }

  /** A client held back from this flush. */
  protected withheld(playerId: number, now: number): void {
    this.#seatRecord(RecordKind.Withheld, playerId, now);
  }

  ended(reason: string, now: number): void {
    if (this.#done) return;
    this.#text(RecordKind.End, reason, now, true);
    this.#done = true;
    const t = now - this.#epoch;
    this.#seal(t);
    this.sink?.end({
      matchId: this.matchId,
      kind: this.start.kind,
      roomId: this.start.roomId,
      startedAt: this.#epoch,
      endedAt: now,
      players: this.#players.size,
      bytes: this.#sealedBytes,
      reason,
    });
  }

  /** The world's hash now: its encoder's (binary rooms), else its checkpoint's JSON. */
  protected worldDigest(): number {
    const game = this.room!.game;
    if (game.sync.mode === "binary") return game.sync.encoder.digest?.() ?? 0;
    return hashText(HASH_START, JSON.stringify(game.checkpoint?.() ?? null) ?? "") >>> 0;
  }

  /** The header was written (a replay's recorder forgets it: it compares records only). */
  protected headerWritten(): void {}

  /** Record `[start, w.offset)` was written (a replay's recorder compares it with its log's). */
  protected recorded(_start: number): void {}

  #seatRecord(kind: number, playerId: number, now: number): void {
    if (this.#done) return;
    const at = this.#open(kind, now);
    this.w.varuint(playerId);
    this.#close(at);
  }

  #text(kind: number, text: string, now: number, ending = false): void {
    const at = this.#open(kind, now);
    this.w.string(text);
    this.#close(at, ending);
  }

  /** Writes a record's tag and time; returns where it starts. */
  #open(kind: number, now: number): number {
    const w = this.w;
    const at = w.offset;
    const t = now - this.#epoch;
    const delta = t - this.#lastTime;
    if (delta === 0) {
      w.u8(kind);
    } else if (delta > 0 && delta < 0x1_0000_0000 && Number.isInteger(delta)) {
      w.u8(kind | TIME_DELTA).varuint(delta);
    } else {
      w.u8(kind | TIME_ABSOLUTE).f64(t);
    }
    this.#lastTime = t;
    return at;
  }

  /** A record is whole: told, and the log ended when it passed its limits. */
  #close(at: number, ending = false): void {
    this.recorded(at);
    if (ending) return;
    if (this.w.offset >= CHUNK_BYTES) this.#seal(this.#lastTime);
    if (this.#lastTime > this.#spec.maxMs || this.#sealedBytes + this.w.offset > this.#spec.maxBytes) {
      this.ended("limit", this.#lastTime + this.#epoch);
    }
  }

  /** Hands the bytes written since the last piece to the sink. */
  #seal(t: number): void {
    this.#lastSealAt = t;
    const w = this.w;
    if (w.offset === 0) return;
    this.#sealedBytes += w.offset;
    this.sink?.chunk(this.matchId, this.#chunks++, w.toBytes());
    w.reset();
  }
}
