import { DurationStats, type DurationSummary } from "./durationStats";

/** Snapshot returned by the `tk:stats` probe. Field names are part of the public contract. */
export interface RoomStatsSnapshot {
  kind: string;
  roomId: string;
  uptimeMs: number;
  ccu: number;
  seats: number;
  heldSeats: number;
  peakCcu: number;
  cap: number;
  tickMs: number;
  syncIntervalMs: number;
  queueInputs: boolean;
  loopRunning: boolean;
  ticks: number;
  ticksSkipped: number;
  flushes: number;
  /** Wall time of tick work (input drain + simulation), ms. See `timing`. */
  tick: DurationSummary;
  /** Wall time of flush work (encode + send for every client), ms. */
  flush: DurationSummary;
  inputs: { received: number; processed: number; rejected: number; rejectedByCode: Record<string, number> };
  acks: number;
  frames: number;
  bytesOut: number;
  bytesIn: number;
  messagesIn: number;
  joins: number;
  reconnects: number;
  refused: Record<string, number>;
  closes: Record<string, number>;
  errors: Record<string, number>;
  game: Record<string, number>;
  /** How durations were measured, so readers know how far to trust them. */
  timing: string;
}

/** Monotonic counters plus tick/flush duration stats of one room. */
export class RoomStats {
  readonly tick = new DurationStats();
  readonly flush = new DurationStats();
  ticks = 0;
  flushes = 0;
  inputsReceived = 0;
  inputsProcessed = 0;
  inputsRejected = 0;
  acks = 0;
  frames = 0;
  bytesOut = 0;
  bytesIn = 0;
  messagesIn = 0;
  joins = 0;
  reconnects = 0;
  peakCcu = 0;
  readonly rejectedByCode: Record<string, number> = {};
  readonly refused: Record<string, number> = {};
  readonly closes: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  readonly game: Record<string, number> = {};

  static bump(map: Record<string, number>, key: string | number, by = 1): void {
    map[key] = (map[key] ?? 0) + by;
  }
}

/** Describes the timing source; deployed Workers advance clocks only across I/O. */
export const TIMING_NOTE =
  "performance.now() around tick and flush work; real time under local workerd and Node, " +
  "coarse (advances only across I/O, usually reads 0) inside deployed Workers";

export type { DurationSummary };
