import { newHistogram } from "../metrics/histogram";
import { round2 } from "../metrics/round2";
import { liveBreach, type LiveThreshold } from "../thresholds/evaluate";
import type { LiveSample } from "./series";
import { windowHistogram, type ThreadTick } from "./threadTick";

const ms = (us: number): number => Math.round(us) / 1000;

/** Why a run stopped early. */
export interface AbortInfo {
  atSec: number;
  threshold: string;
  actual: string;
}

/** Options of {@link LiveAggregator}. */
export interface AggregatorOptions {
  threads: number;
  /** Players the plan wants joined at t seconds (all shards). */
  targetAt: (tSec: number) => number;
  onSample?: (s: LiveSample) => void;
  /** Server CPU over its last second, stamped on the sample as `serverCpuPct` when a number. */
  serverCpuNow?: () => number | null;
  /** Thresholds judged on every sample once `graceSec` has passed; the first breach calls onAbort. */
  live?: readonly LiveThreshold[];
  graceSec?: number;
  onAbort?: (info: AbortInfo) => void;
}

/**
 * Turns the threads' 1 s ticks into one {@link LiveSample} per second for the whole process:
 * counters summed and differenced into rates, window histograms merged exactly, process CPU
 * read once per sample. With several threads a second's sample is built once every thread's
 * tick for that second has arrived (or a later second completed first: then from the ticks
 * that did arrive, each thread's cumulative counters standing in with their latest value).
 */
export class LiveAggregator {
  readonly samples: LiveSample[] = [];
  private readonly latest: (ThreadTick | null)[];
  /** Ticks per second (k) not yet turned into a sample. */
  private readonly pending = new Map<number, (ThreadTick | null)[]>();
  private prev = { tSec: 0, inputsSent: 0, inputsOnSchedule: 0, inputsAcked: 0, framesRx: 0, bytesRx: 0 };
  private cpu = process.cpuUsage();
  private cpuAt = performance.now();
  private aborted = false;

  constructor(private readonly o: AggregatorOptions) {
    this.latest = new Array<ThreadTick | null>(o.threads).fill(null);
  }

  /** Takes in one thread's tick; returns the last sample built from it, if any. */
  accept(thread: number, tick: ThreadTick): LiveSample | null {
    const n = this.latest.length;
    let slot = this.pending.get(tick.tSec);
    if (!slot) {
      slot = new Array<ThreadTick | null>(n).fill(null);
      this.pending.set(tick.tSec, slot);
    }
    slot[thread] = tick;
    if (slot.some((t) => t === null)) return null;
    // This second is complete: emit it and any earlier, incomplete one, in order.
    let built: LiveSample | null = null;
    for (const t of [...this.pending.keys()].sort((a, b) => a - b)) {
      if (t > tick.tSec) break;
      const ticks = this.pending.get(t)!;
      this.pending.delete(t);
      ticks.forEach((x, i) => {
        if (x) this.latest[i] = x;
      });
      built = this.build(t, ticks);
    }
    return built;
  }

  private build(tSec: number, fresh: readonly (ThreadTick | null)[]): LiveSample {
    // Counters are cumulative: a thread late for this second contributes its latest values.
    const ticks = this.latest.filter((t): t is ThreadTick => t !== null);
    const sum = (f: (t: ThreadTick) => number): number => ticks.reduce((a, t) => a + f(t), 0);
    const ack = newHistogram();
    const gap = newHistogram();
    for (const t of fresh) {
      if (!t) continue;
      ack.add(windowHistogram(t.ackWindow));
      gap.add(windowHistogram(t.gapWindow));
    }
    const now = performance.now();
    const cpu = process.cpuUsage(this.cpu);
    const cpuPct = round2(((cpu.user + cpu.system) / 1000 / Math.max(1, now - this.cpuAt)) * 100);
    this.cpu = process.cpuUsage();
    this.cpuAt = now;
    const cur = {
      tSec,
      inputsSent: sum((t) => t.inputsSent),
      inputsOnSchedule: sum((t) => t.inputsOnSchedule),
      inputsAcked: sum((t) => t.inputsAcked),
      framesRx: sum((t) => t.framesRx),
      bytesRx: sum((t) => t.bytesRx),
    };
    const dt = Math.max(1e-3, cur.tSec - this.prev.tSec);
    const players = sum((t) => t.players);
    const sent = cur.inputsSent - this.prev.inputsSent;
    const down = (cur.bytesRx - this.prev.bytesRx) / dt;
    const s: LiveSample = {
      tSec: round2(cur.tSec),
      players,
      target: this.o.targetAt(cur.tSec),
      joined: sum((t) => t.joined),
      failed: sum((t) => t.failed),
      refused: sum((t) => t.refused),
      inputsPerSec: round2(sent / dt),
      acksPerSec: round2((cur.inputsAcked - this.prev.inputsAcked) / dt),
      ackP50Ms: ack.totalCount ? ms(ack.getValueAtPercentile(50)) : null,
      ackP95Ms: ack.totalCount ? ms(ack.getValueAtPercentile(95)) : null,
      ackP99Ms: ack.totalCount ? ms(ack.getValueAtPercentile(99)) : null,
      frameGapP99Ms: gap.totalCount ? ms(gap.getValueAtPercentile(99)) : null,
      framesPerSecPerClient: players > 0 ? round2((cur.framesRx - this.prev.framesRx) / dt / players) : null,
      downlinkBytesPerSec: Math.round(down),
      downlinkBytesPerSecPerClient: players > 0 ? Math.round(down / players) : null,
      errors: sum((t) => t.errors),
      unexpectedCloses: sum((t) => t.unexpectedCloses),
      dropped: sum((t) => t.dropped),
      reconnected: sum((t) => t.reconnected),
      onSchedulePct: sent > 0 ? round2(((cur.inputsOnSchedule - this.prev.inputsOnSchedule) / sent) * 100) : null,
      eventLoopP99Ms: Math.max(0, ...ticks.map((t) => t.eventLoopP99Ms)),
      generatorCpuPct: cpuPct,
    };
    const server = this.o.serverCpuNow?.();
    if (typeof server === "number") s.serverCpuPct = server;
    this.prev = cur;
    this.samples.push(s);
    this.o.onSample?.(s);
    this.judge(s);
    return s;
  }

  private judge(s: LiveSample): void {
    const live = this.o.live;
    if (this.aborted || !live || live.length === 0 || !this.o.onAbort) return;
    if (s.tSec < (this.o.graceSec ?? 0)) return;
    const breach = liveBreach(live, s as unknown as Record<string, unknown>);
    if (!breach) return;
    this.aborted = true;
    this.o.onAbort({ atSec: s.tSec, ...breach });
  }
}
