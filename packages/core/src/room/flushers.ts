import { FrameFlag, beginFrame, endFrame, flushEveryTicks, writeFrameAck, writeFrameEvents, type EventSchema, type FrameWriter, type JsonServerMessage } from "@tikron/protocol";
import type { Game } from "../game";
import type { RoomOptions } from "../roomOptions";
import type { RoomStats } from "../roomStats";
import type { JsonStateSource, StateEncoder } from "../stateEncoder";
import { sendTo, type ClientLink, type Dialect, type Seat } from "./clientLink";
import type { MatchRecorder } from "../replay/matchRecorder";
import { isIdleBeat } from "./idleBeat";

/**
 * How a room's state reaches each seat: the one seam between the room's loop (when to flush,
 * who is connected) and the dialect its game syncs in. {@link BinaryFlusher} writes one FRAME
 * per seat (`[kind][flags][tick][time][ack?][events?][delta?]`) through the room's writer and
 * the game's {@link StateEncoder}; {@link JsonFlusher} one `state` text with the ack, the view and
 * the events. What every state message shares is written once below: its time, the ack
 * bookkeeping, and the `frames`/`bytesOut` accounting. A seat's queued notices go out first, in
 * the same pass (room/gameOutput.ts encoded them).
 */
export interface Flusher {
  /** The dialect this room's sockets must speak (their hello is refused otherwise). */
  readonly dialect: Dialect;
  /** The welcome's `schemaHash` (0 for JSON rooms). */
  readonly schemaHash: number;
  /** The schema's declared events, which the game's event objects are encoded with (none in JSON rooms). */
  readonly events: EventSchema | null;
  /** A socket took `seat`: its per-client state starts from an empty baseline. */
  attach(seat: Seat): void;
  /** `seat` lost its socket (held or freed): its per-client state is released. */
  detach(seat: Seat): void;
  /** The game's state changed (JSON rooms send every view at their next flush). */
  stateChanged(): void;
  /**
   * Starts one flush (binary rooms quantize the world and build the shared updates here, once).
   * Its seats follow through {@link flushSeat}, possibly across several tasks
   * (room/slicedFlush.ts); nothing in the game's state moves meanwhile but joins and leaves.
   */
  beginFlush(tick: number, now: number): void;
  /**
   * The flush begun last, for one seat: its queued notices, then at most one state message.
   * `index` is the seat's place in the flush (it staggers the runtime backlog reads); `now` is
   * the instant the flush began at, handed in by the caller rather than read from a field here:
   * a number read from an object's field and passed on is boxed afresh on every call, which
   * was a heap number per client per flush. Returns true when the seat is a connected client
   * (the work a slice is measured in), false for a seat with no socket or a bot's.
   */
  flushSeat(seat: Seat, index: number, now: number): boolean;
  /** Sends `seat` its ack at once, alone (inputs applied on arrival in a ticking room). */
  ackNow(seat: Seat, tick: number, now: number): void;
  /** The flush begun last is done for every seat (a simulation then sends each relay its message). */
  endFlush?(): void;
  /**
   * After a flush: it sent every connected client at most an idle frame and left each holding
   * all it can see (none behind, none with changes its tiers held back), so a flush with nothing
   * new would send nothing but the idle beat's frames. Absent: never known (the room never sleeps).
   */
  readonly quiet?: boolean;
  /** The room slept through `n` flushes that would have sent nothing: their indexes pass (the tiers' phases stay). */
  skipFlushes?(n: number): void;
}

/** Backpressure for the state stream (the room's sockets answer it: room/roomSockets.ts). */
export interface StreamGate {
  /**
   * False when `link` is behind (its message is skipped) or was just closed 4004. `readRuntime`
   * also consults the runtime's `bufferedAmount`.
   */
  streamAllowed(link: ClientLink, now: number, readRuntime: boolean): boolean;
}

/** What a flusher needs from its room. */
export interface FlushDeps {
  readonly options: RoomOptions;
  readonly stats: RoomStats;
  /** The room's one reused writer. */
  readonly writer: FrameWriter;
  /** Room time 0 (the welcome's `roomEpoch`): state times count from it. */
  readonly epoch: number;
  readonly gate: StreamGate;
  /** The recorder of the room's match (it hashes every state message and notice sent), if recorded. */
  readonly recorder?: MatchRecorder | null;
}

/** The flusher of a game's sync mode. */
export function createFlusher(sync: Game["sync"], deps: FlushDeps): Flusher {
  return sync.mode === "binary" ? new BinaryFlusher(sync.encoder, deps) : new JsonFlusher(sync.source, deps);
}

/** A state message's time: whole ms since the room's epoch, never negative. */
function stateTime(now: number, epoch: number): number {
  return Math.max(0, Math.round(now - epoch));
}

/**
 * The seq `seat`'s next state message acks, marked acked and counted, or 0 when it owes none
 * (seqs start at 1). One ack covers every input processed since the last one.
 */
export function takeAck(seat: Seat, stats: RoomStats): number {
  if (seat.lastProcessedSeq <= seat.lastAckedSeq) return 0;
  seat.lastAckedSeq = seat.lastProcessedSeq;
  stats.acks++;
  return seat.lastAckedSeq;
}

/** Sends one state message, counted in `frames` and `bytesOut` (UTF-16 units for text), and told to the match recorder. */
function sendState(link: ClientLink, data: Uint8Array | string, d: FlushDeps): void {
  const stats = d.stats;
  stats.frames++;
  stats.bytesOut += typeof data === "string" ? data.length : data.byteLength;
  if (d.recorder && link.seat) d.recorder.sent(link.seat.playerId, data);
  sendTo(link, data);
}

/**
 * Sends `seat`'s queued notices, counted in `notices`. Not optional like a frame (the game does
 * not send them again), and rare: they go out even to a client that is behind, whose backlog
 * then closes it 4004 if it never catches up.
 */
function sendNotices(link: ClientLink, seat: Seat, d: FlushDeps): void {
  const notices = seat.notices;
  const recorder = d.recorder;
  for (let i = 0; i < notices.length; i++) {
    if (recorder) recorder.sent(seat.playerId, notices[i]!);
    sendTo(link, notices[i]!);
  }
  d.stats.notices += notices.length;
  notices.length = 0;
}

/**
 * Binary rooms: per connected seat one FRAME built in the room's single writer, one send each.
 * A seat with no ack, no events and no delta gets no frame, except an idle frame (header only)
 * at the first flush after its view stopped changing and then at each of the room's idle beats
 * (room/idleBeat.ts: about one per `idleFrameMs`, the same flushes for every client), so its
 * client knows time advanced with nothing moving. Bots get nothing.
 */
export class BinaryFlusher implements Flusher {
  readonly dialect = "binary";
  /** The flush begun last: its index (the encoder's and the tiers' phase), tick and time. */
  private flushIndex = -1;
  private tick = 0;
  private time = 0;
  /** The flush begun last is an idle beat. */
  private beat = false;
  /** See {@link Flusher.quiet}: true until a seat of the flush begun last says otherwise. */
  quiet = false;

  constructor(
    private readonly encoder: StateEncoder,
    private readonly d: FlushDeps,
    /**
     * The flush index each flush encodes with. A room counts its own; a relay takes its
     * mirror's (the simulation's), which its encoder's tiers and baselines must follow.
     */
    private readonly nextFlushIndex: (previous: number) => number = (previous) => previous + 1,
  ) {}

  get schemaHash(): number {
    return this.encoder.schemaHash;
  }

  get events(): EventSchema | null {
    return this.encoder.events ?? null;
  }

  attach(seat: Seat): void {
    if (seat.syncState !== null) this.encoder.releaseClient(seat.syncState);
    seat.syncState = this.encoder.createClient(seat.playerId);
  }

  detach(seat: Seat): void {
    if (seat.syncState === null) return;
    this.encoder.releaseClient(seat.syncState);
    seat.syncState = null;
  }

  stateChanged(): void {}

  beginFlush(tick: number, now: number): void {
    this.flushIndex = this.nextFlushIndex(this.flushIndex);
    this.tick = tick;
    this.time = stateTime(now, this.d.epoch);
    const o = this.d.options;
    this.beat = isIdleBeat(tick, o.tickMs, flushEveryTicks(o.syncIntervalMs, o.tickMs), o.idleFrameMs);
    // Only an encoder that tells when a client holds all it can see lets a flush be quiet.
    this.quiet = this.encoder.settled !== undefined;
    this.encoder.beginFlush(this.flushIndex);
  }

  skipFlushes(n: number): void {
    this.flushIndex += n;
  }

  flushSeat(seat: Seat, index: number, now: number): boolean {
    const link = seat.link;
    if (!link) return false;
    if (link.connection.bot === true) {
      // Bots read nothing: encoding their frames would be work for nobody.
      seat.events.length = seat.notices.length = 0;
      return false;
    }
    const { encoder } = this;
    const { writer: w, stats, gate } = this.d;
    if (seat.notices.length > 0) sendNotices(link, seat, this.d);
    // A client that is behind gets no frame: its baseline stays at the last frame it got, so
    // the next one it gets carries everything since (a fresh view, not a replay). The
    // runtime's own backlog is read every 4th flush per client, staggered.
    if (!gate.streamAllowed(link, now, ((this.flushIndex + index) & 3) === 0)) {
      this.quiet = false;
      return true;
    }
    w.reset();
    const flagsPos = beginFrame(w, this.tick, this.time);
    let flags = 0;
    const ack = takeAck(seat, stats);
    if (ack > 0) {
      writeFrameAck(w, ack);
      flags |= FrameFlag.Ack;
    }
    if (seat.events.length > 0) {
      writeFrameEvents(w, seat.events as Uint8Array[]);
      seat.events.length = 0;
      flags |= FrameFlag.Events;
    }
    if (encoder.encodeClient(seat.syncState, w)) flags |= FrameFlag.Delta;
    if (flags !== 0 || (this.quiet && !encoder.settled!(seat.syncState))) this.quiet = false;
    if (flags === 0) {
      // Nothing changed for this client: a header-only frame at once when it stops changing,
      // then one per idle beat, tells it that time advanced with nothing moving, so its
      // playout clock neither drifts nor starves.
      if (this.d.options.idleFrameMs === 0 || (seat.settled && !this.beat)) return true;
      stats.idleFrames++;
      seat.settled = true;
    } else {
      seat.settled = false;
    }
    seat.lastFrameAt = now;
    endFrame(w, flagsPos, flags);
    sendState(link, w.peek(), this.d);
    return true;
  }

  /** An ack-only frame (queueInputs off): one extra send per input, by design. */
  ackNow(seat: Seat, tick: number, now: number): void {
    const link = seat.link;
    if (!link) return;
    const ack = takeAck(seat, this.d.stats);
    if (ack === 0) return;
    const w = this.d.writer.reset();
    const flagsPos = beginFrame(w, tick, stateTime(now, this.d.epoch));
    seat.lastFrameAt = now;
    writeFrameAck(w, ack);
    endFrame(w, flagsPos, FrameFlag.Ack);
    sendState(link, w.peek(), this.d);
  }
}

/**
 * JSON rooms (turn-based: a handful of seats, a flush when the game marks a change): per
 * connected seat a `state` message with the ack, the seat's view when the state changed, and its
 * events. A seat with none of these gets nothing.
 */
export class JsonFlusher implements Flusher {
  readonly dialect = "json";
  readonly schemaHash = 0;
  readonly events = null;
  /** The state changed since the last flush: every seat gets its view. */
  private changed = false;
  /** The flush begun last: whether it sends views, and its tick. */
  private stateChangedAtBegin = false;
  private tick = 0;

  constructor(
    private readonly source: JsonStateSource,
    private readonly d: FlushDeps,
  ) {}

  /** A seat taken changes what everyone sees (the seats in the view): every view goes next flush. */
  attach(): void {
    this.changed = true;
  }

  detach(): void {}

  stateChanged(): void {
    this.changed = true;
  }

  beginFlush(tick: number): void {
    this.stateChangedAtBegin = this.changed;
    this.changed = false;
    this.tick = tick;
  }

  flushSeat(seat: Seat, _index: number, now: number): boolean {
    const link = seat.link;
    if (!link) return false;
    const { stats, gate } = this.d;
    const { stateChangedAtBegin } = this;
    if (seat.notices.length > 0) sendNotices(link, seat, this.d);
    // A client that is behind gets nothing now; its next state carries the view then current.
    if (!gate.streamAllowed(link, now, true)) {
      if (stateChangedAtBegin) seat.viewStale = true;
      return true;
    }
    const changed = stateChangedAtBegin || seat.viewStale;
    seat.viewStale = false;
    const msg: Extract<JsonServerMessage, { t: "state" }> = { t: "state", tick: this.tick, time: stateTime(now, this.d.epoch) };
    let any = false;
    const ack = takeAck(seat, stats);
    if (ack > 0) {
      msg.ack = ack;
      any = true;
    }
    if (changed) {
      msg.state = this.source.viewFor(seat.playerId);
      any = true;
    }
    if (seat.events.length > 0) {
      msg.events = seat.events.slice();
      seat.events.length = 0;
      any = true;
    }
    if (any) sendState(link, JSON.stringify(msg), this.d);
    return link.connection.bot !== true;
  }

  ackNow(seat: Seat, tick: number, now: number): void {
    const link = seat.link;
    if (!link) return;
    const ack = takeAck(seat, this.d.stats);
    if (ack === 0) return;
    const msg: Extract<JsonServerMessage, { t: "state" }> = { t: "state", tick, time: stateTime(now, this.d.epoch), ack };
    sendState(link, JSON.stringify(msg), this.d);
  }
}
