import type { RoomMetadata } from "@tikron/protocol";
import type { BusyReading } from "./busyMeter";
import { DurationStats, type DurationSummary } from "./durationStats";

/** The `sleep` section of `tk:stats`. */
export interface SleepStats {
  /** The loop sleeps now. */
  asleep: boolean;
  /** Times the loop went to sleep. */
  sleeps: number;
  /** Times something woke it (an arrival, a leave, an operator, the game), or a tick of its own found it not still. */
  wakes: number;
  /** Ticks run while asleep: the idle beats' and due checkpoints'. */
  beats: number;
  /** Clock ms spent asleep, the current sleep included. */
  asleepMs: number;
}

/** Snapshot returned by the `tk:stats` probe. Field names are part of the public contract. */
export interface RoomStatsSnapshot {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** ms since the room was created. */
  uptimeMs: number;
  /** Connected players now. */
  ccu: number;
  /** Seats taken now, connected or held. */
  seats: number;
  /** Seats held for a reconnect (socket gone, window open). */
  heldSeats: number;
  /** Most players connected at once. */
  peakCcu: number;
  /** Seat cap. */
  cap: number;
  /** Tick length (ms). */
  tickMs: number;
  /** Least ms between two state frames to one client. */
  syncIntervalMs: number;
  /** Inputs wait for the next tick (true) or apply on arrival. */
  queueInputs: boolean;
  /** True while the tick loop runs (someone is connected). */
  loopRunning: boolean;
  /** Ticks run. */
  ticks: number;
  /** Ticks skipped because the loop fell behind its deadlines. */
  ticksSkipped: number;
  /** Flushes run. */
  flushes: number;
  /** Wall time of tick work (input drain + simulation), ms. See `timing`. */
  tick: DurationSummary;
  /**
   * Wall time of a whole flush, ms: from its begin (quantize, shared updates) to its last
   * client's send. A flush in slices spans the tasks run between them too, so this stays
   * comparable with a flush in one task. See `flushSlice` for the longest task.
   */
  flush: DurationSummary;
  /** The longest slice of each flush, ms: how long a flush held the thread at once. */
  flushSlice: DurationSummary;
  /** Slices run, all flushes (one per flush no bigger than `flushSliceClients`). */
  flushSlices: number;
  /** Flushes whose rest was sent at once because the next tick (or a dispose) came before their slices ran. */
  flushesFinishedAtOnce: number;
  /** How late the tick timer fired after its deadline, ms: the event loop's wait, not the room's work. */
  timerLate: DurationSummary;
  /** Inputs: received, processed (applied or refused), refused, and refusals by error name. */
  inputs: {
    /** Inputs that arrived. */
    received: number;
    /** Inputs applied or refused (each advances the seat's ack). */
    processed: number;
    /** Inputs refused. */
    rejected: number;
    /** Refusals by error name (`bad_input`, `stale_seq`, …). */
    rejectedByCode: Record<string, number>;
  };
  /**
   * Game messages (the protocol's MESSAGE kind, for `Game.onMessage`): received from seated players, handled by the game,
   * refused (rate, size, bad JSON, no handler, the game's own refusals, handler errors), and
   * refusals by error name.
   */
  gameMessages: {
    /** Messages that arrived from seated players. */
    received: number;
    /** Messages the game handled (answered when a reply was asked for). */
    handled: number;
    /** Messages refused. */
    refused: number;
    /** Refusals by error name (`rate_limited`, `message_too_large`, `bad_message`, `unknown_message`, `internal`, …). */
    refusedByCode: Record<string, number>;
  };
  /** Notices (`ctx.send` / `ctx.broadcast`) sent: one per player reached. */
  notices: number;
  /** Frames that carried an ack. */
  acks: number;
  /** State frames sent. */
  frames: number;
  /** State frames not sent because the client was behind (backpressure; see `softBufferedBytes`). */
  framesSkipped: number;
  /** Seats rebuilt from a checkpoint after a restart. */
  restoredSeats: number;
  /** Game states restored from a checkpoint (a ticking game's world goes on from it; `errors.checkpoint_refused` counts refusals). */
  restoredGames: number;
  /** Bytes sent to clients. */
  bytesOut: number;
  /** Bytes received from clients. */
  bytesIn: number;
  /** Messages received from clients. */
  messagesIn: number;
  /** New seats taken. */
  joins: number;
  /** Held seats resumed. */
  reconnects: number;
  /** Joins refused, by reason (`room_full`, `join_throttled`, `socket_backlog`). */
  refused: Record<string, number>;
  /** Socket closes, by close code. */
  closes: Record<string, number>;
  /** Errors, by error name. */
  errors: Record<string, number>;
  /** The game's own counters (`ctx.count`). */
  game: Record<string, number>;
  /**
   * This object's spectators (core/src/spectate), once one came: sockets, lanes and groups now,
   * frames, keyframes and the sends carrying them (a delayed spectator's bundles), encodes (one
   * per watched target per flush), refusals, hello timeouts. A relayed room's
   * are on its relays (each relay's report). Their refused joins are also in `refused.spectators_full`,
   * their refused messages in `errors.spectating`.
   */
  spectators?: SpectatorStats;
  /**
   * The loop's sleep while the game is still (core room/roomSleep.ts): asleep now, sleeps,
   * wakes, ticks run asleep (idle beats, due checkpoints) and ms asleep. Only from a room whose
   * game declares stillness (`Game.still`).
   */
  sleep?: SleepStats;
  /** Bot players seated now and the inputs they sent (also counted in `inputs`). */
  bots: {
    /** Bot seats now. */
    count: number;
    /** Inputs bots sent since the room started. */
    inputs: number;
  };
  /** Empty frames sent to idle clients (also counted in `frames`). */
  idleFrames: number;
  /** Seat reservations from a matchmaker: pending now, and what became of the others. */
  reservations: ReservationCounts & {
    /** Reservations holding a seat now. */
    pending: number;
  };
  /**
   * The game's own admission (`Game.admit`): joins it was asked about and admitted, and joins
   * waiting for its answer now (each holding a seat against the cap). Its refusals are under
   * `refused` (`join_refused`, `admission_timeout`, `admission_failed`), as are join options
   * refused (`bad_options`).
   */
  admissions: AdmissionCounts & {
    /** Joins waiting for the game's answer now. */
    waiting: number;
  };
  /** How a matchmaker lists the room. */
  listing: {
    /** The room takes no new players. */
    locked: boolean;
    /** The room is never listed or picked. */
    private: boolean;
    /** The game's metadata. */
    metadata: RoomMetadata;
  };
  /** The game's deferred work (`ctx.defer`): what became of it, and what is still pending. */
  deferred: DeferredCounts & {
    /** Work not yet settled. */
    pending: number;
  };
  /** The game's store (`ctx.store`). */
  store: {
    /** Keys held. */
    keys: number;
    /** Characters used (keys and JSON text). */
    chars: number;
    /** Changes since the room was made. */
    version: number;
  };
  /**
   * The room object's own time (busyMeter.ts): every host event that ran its code (requests,
   * socket events, timers), where the host meters it; in a relayed room the simulation's alone
   * (each relay's is under `relays`). Local only: deployed Workers' clocks do not advance while
   * code runs.
   */
  busy?: BusyReading;
  /** How durations were measured, so readers know how far to trust them. */
  timing: string;
}

/** Counters of a room's deferred work, as `tk:stats` reports them under `deferred`. */
export interface DeferredCounts {
  /** Work accepted. */
  started: number;
  /** Work that finished. */
  done: number;
  /** Work that failed (rejected or threw); each is logged with its label. */
  failed: number;
  /** Work refused because `MAX_PENDING_DEFERRED` (64) were pending. */
  refused: number;
}

/** What happened to reservations, for `tk:stats` (`reservations.*`). */
export interface ReservationCounts {
  /** Seats reserved. */
  made: number;
  /** Reservations a join used. */
  used: number;
  /** Reservations given up unused after their lifetime. */
  expired: number;
  /** Reserve requests refused (room full, locked, private). */
  refused: number;
  /** Joins that presented a reservation the room did not hold (unknown, used, expired, other identity). */
  invalid: number;
  /** Reservations the matchmaker gave back unused (a party member left before joining). */
  released: number;
}

/** The sum of a counter map (`errors`, `closes`, …): every kind counted once. */
export function counterTotal(counters: Readonly<Record<string, number>>): number {
  let n = 0;
  for (const k in counters) n += counters[k]!;
  return n;
}

/** Monotonic counters plus tick/flush duration stats of one room. */
export class RoomStats {
  /** Wall time of tick work (input drain + simulation). */
  readonly tick = new DurationStats();
  /** Wall time of a whole flush, begin to last send (across its slices). */
  readonly flush = new DurationStats();
  /** The longest slice of each flush. */
  readonly flushSlice = new DurationStats();
  /** Lateness of the tick timer after its grid deadline. */
  readonly timerLate = new DurationStats();
  // The counters below are reported under the same names (or grouped, e.g. `inputs.received`)
  // in the tk:stats snapshot; see RoomStatsSnapshot for what each one counts.
  ticks = 0;
  flushes = 0;
  flushSlices = 0;
  flushesFinishedAtOnce = 0;
  inputsReceived = 0;
  inputsProcessed = 0;
  inputsRejected = 0;
  gameMessagesReceived = 0;
  gameMessagesHandled = 0;
  gameMessagesRefused = 0;
  notices = 0;
  acks = 0;
  frames = 0;
  framesSkipped = 0;
  /** Seats rebuilt from a checkpoint after a restart. */
  restoredSeats = 0;
  /** Game states restored from a checkpoint. */
  restoredGames = 0;
  bytesOut = 0;
  bytesIn = 0;
  messagesIn = 0;
  joins = 0;
  reconnects = 0;
  peakCcu = 0;
  idleFrames = 0;
  readonly rejectedByCode: Record<string, number> = {};
  readonly gameMessagesRefusedByCode: Record<string, number> = {};
  readonly refused: Record<string, number> = {};
  readonly closes: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  readonly game: Record<string, number> = {};

  /** Adds `by` to the counter `key` of a counter map (creating it at 0). */
  static bump(map: Record<string, number>, key: string | number, by = 1): void {
    map[key] = (map[key] ?? 0) + by;
  }
}

/** Counters behind `tk:stats` `admissions` (the game's own admission, `Game.admit`). */
export interface AdmissionCounts {
  /** Joins the game's `admit` was asked about. */
  asked: number;
  /** Of those, joins it admitted. */
  admitted: number;
}

/** What a room knows beyond its counters when it answers the probe. */
export interface RoomStatsContext {
  kind: string;
  roomId: string;
  uptimeMs: number;
  /** Seated sockets (seats with a live connection). */
  connectedCount: number;
  /** Seats taken, connected or held. */
  seatCount: number;
  cap: number;
  tickMs: number;
  /** The cadence the room really flushes at (whole ticks). */
  syncIntervalMs: number;
  queueInputs: boolean;
  loopRunning: boolean;
  ticksSkipped: number;
  bots: { count: number; inputs: number };
  reservations: ReservationCounts & { pending: number };
  admissions: AdmissionCounts & { waiting: number };
  listing: { locked: boolean; private: boolean; metadata: RoomMetadata };
  deferred: DeferredCounts & { pending: number };
  store: { keys: number; chars: number; version: number };
  /** The object's own time, where the host meters it. */
  busy?: BusyReading;
  /** The object's spectators, once one came (core/src/spectate). */
  spectators?: SpectatorStats;
  /** The loop's sleep, in a room that may sleep. */
  sleep?: SleepStats;
}

/**
 * The `tk:stats` snapshot: a copy of every counter (so a later tick cannot change an answer
 * already handed out) under the field names clients and tools read. `ccu` keeps its name in
 * the snapshot because those readers depend on it.
 */
export function buildStatsSnapshot(s: RoomStats, c: RoomStatsContext): RoomStatsSnapshot {
  return {
    kind: c.kind,
    roomId: c.roomId,
    uptimeMs: c.uptimeMs,
    ccu: c.connectedCount,
    seats: c.seatCount,
    heldSeats: c.seatCount - c.connectedCount,
    peakCcu: s.peakCcu,
    cap: c.cap,
    tickMs: c.tickMs,
    syncIntervalMs: c.syncIntervalMs,
    queueInputs: c.queueInputs,
    loopRunning: c.loopRunning,
    ticks: s.ticks,
    ticksSkipped: c.ticksSkipped,
    flushes: s.flushes,
    tick: s.tick.summary(),
    flush: s.flush.summary(),
    flushSlice: s.flushSlice.summary(),
    flushSlices: s.flushSlices,
    flushesFinishedAtOnce: s.flushesFinishedAtOnce,
    timerLate: s.timerLate.summary(),
    inputs: {
      received: s.inputsReceived,
      processed: s.inputsProcessed,
      rejected: s.inputsRejected,
      rejectedByCode: { ...s.rejectedByCode },
    },
    gameMessages: {
      received: s.gameMessagesReceived,
      handled: s.gameMessagesHandled,
      refused: s.gameMessagesRefused,
      refusedByCode: { ...s.gameMessagesRefusedByCode },
    },
    notices: s.notices,
    acks: s.acks,
    frames: s.frames,
    framesSkipped: s.framesSkipped,
    restoredSeats: s.restoredSeats,
    restoredGames: s.restoredGames,
    bytesOut: s.bytesOut,
    bytesIn: s.bytesIn,
    messagesIn: s.messagesIn,
    joins: s.joins,
    reconnects: s.reconnects,
    refused: { ...s.refused },
    closes: { ...s.closes },
    errors: { ...s.errors },
    game: { ...s.game },
    bots: { ...c.bots },
    idleFrames: s.idleFrames,
    reservations: { ...c.reservations },
    admissions: { ...c.admissions },
    listing: { ...c.listing, metadata: { ...c.listing.metadata } },
    deferred: { ...c.deferred },
    store: { ...c.store },
    ...(c.busy ? { busy: c.busy } : {}),
    ...(c.spectators ? { spectators: c.spectators } : {}),
    ...(c.sleep ? { sleep: c.sleep } : {}),
    timing: TIMING_NOTE,
  };
}

/** Describes the timing source; deployed Workers advance clocks only across I/O. */
export const TIMING_NOTE =
  "performance.now() around tick and flush work; real time under local workerd and Node, " +
  "coarse (advances only across I/O, usually reads 0) inside deployed Workers";

export type { DurationSummary } from "./durationStats";

/** What a room's spectators cost and did, counted by its hub (core/src/spectate). */
export interface SpectatorCounters {
  /** Frames sent to spectators (deltas and idle frames; each spectator's counted, bundled or not). */
  frames: number;
  /**
   * Messages of frames sent to spectators: one per frame for undelayed ones, one per bundle of
   * several frames for delayed ones (protocol bundle.ts). The socket sends the object pays for.
   */
  sends: number;
  /** Keyframes sent (a join, a target switch, a spectator back from being behind). */
  keyframes: number;
  /** Encodes run: one per target group per flush, one per keyframe. The cost that does not grow with spectators. */
  encodes: number;
  /** Bytes sent to spectators. */
  bytesOut: number;
  /** Frames a spectator could not take (its socket behind): it gets a keyframe later. */
  skipped: number;
  /** Inputs and other seat-only messages refused from spectators (`spectating`). */
  refused: number;
  /** Spectator joins refused because the room held `maxSpectators`. */
  refusedFull: number;
  /** Stream messages a spectator mirror could not read (it then waits for a snapshot). */
  streamErrors: number;
  /** Spectator sockets closed for saying no hello within `helloTimeoutMs` (`hello_timeout`, 4006). */
  helloTimeouts: number;
}

/** The `spectators` section of `tk:stats`: one object's spectators. */
export interface SpectatorStats extends SpectatorCounters {
  /** Spectator sockets connected now. */
  connected: number;
  /** Delay lanes (one mirror each) and target groups (one encode each per flush) now. */
  lanes: number;
  groups: number;
}
