import type { GameSession } from "./gameSession";
import type { NetConditions } from "./netConditions";
import { LaneChart } from "@tikron/admin/chart";
import { RateMeter } from "./rateMeter";

/** Samples kept per series: one per {@link SAMPLE_MS} over the last ~10 s. */
const SAMPLES = 100;
const SAMPLE_MS = 100;

/**
 * The net graph (Source's `net_graph`, for this engine): one lane per signal over the last ~10 s
 * — ack round trip, gap between state frames and its jitter, the interpolation delay, the
 * prediction correction, bytes in and out per second, and the simulated loss. Sampled 10 times
 * a second from the SDK's live numbers into a {@link LaneChart}'s ring buffers and drawn only
 * while shown, so it costs nothing hidden and little shown.
 */
export class NetGraph {
  /** Whether the panel is shown (key G or its button). */
  visible = false;
  private readonly chart: LaneChart;
  private readonly inRate = new RateMeter();
  private readonly outRate = new RateMeter();
  private lastSampleAt = -Infinity;
  private lastFrames = -1;
  private lastFrameAt = -Infinity;
  private gapMs = 0;
  private meanGap = 0;
  private jitter = 0;

  constructor(
    canvas: HTMLCanvasElement,
    private readonly session: GameSession,
    private readonly net: NetConditions,
  ) {
    this.chart = new LaneChart(
      canvas,
      [
        { label: "ack rtt", unit: "ms", color: "#5ec8ff" },
        { label: "frame gap", unit: "ms", color: "#9be564" },
        { label: "jitter", unit: "ms", color: "#ffd166" },
        { label: "interp delay", unit: "ms", color: "#c792ea" },
        { label: "correction", unit: "u", color: "#ff6b8b" },
        { label: "in", unit: "kB/s", color: "#7fdbca" },
        { label: "out", unit: "kB/s", color: "#f78c6c" },
        { label: "sim. loss", unit: "%", color: "#ff5370" },
      ],
      SAMPLES,
    );
  }

  /** Samples drawn so far (the browser test reads it through the debug handle). */
  get draws(): number {
    return this.chart.draws;
  }

  /** Per render frame: notes frame arrivals (gap and jitter) and samples every 100 ms. */
  frame(now: number): void {
    const st = this.session.stats;
    if (st.frames !== this.lastFrames) {
      if (this.lastFrames >= 0 && Number.isFinite(this.lastFrameAt)) {
        const gap = now - this.lastFrameAt;
        this.gapMs = gap;
        this.meanGap = this.meanGap === 0 ? gap : this.meanGap * 0.9 + gap * 0.1;
        this.jitter = this.jitter * 0.9 + Math.abs(gap - this.meanGap) * 0.1;
      }
      this.lastFrames = st.frames;
      this.lastFrameAt = now;
    }
    this.inRate.sample(st.bytesIn, now);
    this.outRate.sample(st.bytesOut, now);
    if (now - this.lastSampleAt < SAMPLE_MS) return;
    this.lastSampleAt = now;
    // A frame overdue by more than the last gap shows as a growing gap, not a frozen one.
    const gap = Math.max(this.gapMs, Number.isFinite(this.lastFrameAt) ? now - this.lastFrameAt : 0);
    this.chart.push([st.rttMs, gap, this.jitter, st.interpolationDelayMs, st.predictionError, this.inRate.rate / 1024, this.outRate.rate / 1024, this.net.current.loss * 100]);
    if (this.visible) this.chart.draw();
  }
}
