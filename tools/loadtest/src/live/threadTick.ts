import type { Histogram } from "hdr-histogram-js";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { ELD_RESOLUTION_MS } from "../metrics/genHealth";
import { decodeHistogram, encodeHistogram, newHistogram } from "../metrics/histogram";
import type { LiveWindow, RoomMetrics } from "../metrics/roomMetrics";
import { round2 } from "../metrics/round2";

/**
 * What one generator thread measured in the last second: cumulative counters summed over its
 * rooms, and the 1 s window histograms (then reset). Building one costs a pass over the rooms
 * and nothing per message: the clients record into the window as they record into the room.
 */
export interface ThreadTick {
  tSec: number;
  players: number;
  joined: number;
  failed: number;
  refused: number;
  inputsSent: number;
  inputsOnSchedule: number;
  inputsAcked: number;
  framesRx: number;
  bytesRx: number;
  errors: number;
  unexpectedCloses: number;
  dropped: number;
  reconnected: number;
  eventLoopP99Ms: number;
  /** In-thread: the histograms themselves; across threads: their encoded form. */
  ackWindow: Histogram | string;
  gapWindow: Histogram | string;
}

/** Samples one thread's rooms once per second (see {@link ThreadTick}). */
export class ThreadSampler {
  private readonly window: LiveWindow = { ackRtt: newHistogram(), frameGap: newHistogram() };
  private readonly eld: IntervalHistogram = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });

  /**
   * @param rooms the thread's rooms; a matchmaking run appends to it as rooms appear (see {@link watch})
   * @param unmatched players never seated by the matchmaker so far (counted as failed)
   */
  constructor(
    private readonly rooms: readonly RoomMetrics[],
    private readonly unmatched: () => number = () => 0,
  ) {
    for (const r of rooms) r.window = this.window;
    this.eld.enable();
  }

  /** A room that appeared after the start records into the window too. */
  watch(room: RoomMetrics): void {
    room.window = this.window;
  }

  /** The tick for the second that just ended; resets the window. `encode` for posting across threads. */
  tick(tSec: number, encode: boolean): ThreadTick {
    const t: ThreadTick = {
      tSec,
      players: 0,
      joined: 0,
      failed: 0,
      refused: 0,
      inputsSent: 0,
      inputsOnSchedule: 0,
      inputsAcked: 0,
      framesRx: 0,
      bytesRx: 0,
      errors: 0,
      unexpectedCloses: 0,
      dropped: 0,
      reconnected: 0,
      eventLoopP99Ms: Math.max(0, round2(this.eld.percentile(99) / 1e6 - ELD_RESOLUTION_MS)),
      ackWindow: encode ? encodeHistogram(this.window.ackRtt) : copy(this.window.ackRtt),
      gapWindow: encode ? encodeHistogram(this.window.frameGap) : copy(this.window.frameGap),
    };
    this.eld.reset();
    this.window.ackRtt.reset();
    this.window.frameGap.reset();
    t.failed += this.unmatched();
    for (const r of this.rooms) {
      const c = r.counters;
      t.players += r.connected;
      t.joined += c.joined;
      t.failed += c.failed + c.throttled;
      t.refused += c.refused;
      t.inputsSent += c.inputsSent;
      t.inputsOnSchedule += c.inputsOnSchedule;
      t.inputsAcked += c.inputsAcked;
      t.framesRx += c.framesRx;
      t.bytesRx += c.bytesRx;
      t.unexpectedCloses += c.unexpectedCloses;
      t.dropped += c.dropped;
      t.reconnected += c.reconnected;
      for (const k in r.errors) t.errors += r.errors[k]!;
    }
    return t;
  }

  stop(): void {
    this.eld.disable();
    for (const r of this.rooms) r.window = null;
  }
}

function copy(h: Histogram): Histogram {
  const out = newHistogram();
  out.add(h);
  return out;
}

/** The window histogram of a tick, whichever form it travelled in. */
export function windowHistogram(h: Histogram | string): Histogram {
  return typeof h === "string" ? decodeHistogram(h) : h;
}
