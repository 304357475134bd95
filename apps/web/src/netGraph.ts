import type { GameSession } from "./gameSession";
import type { NetConditions } from "./netConditions";
import { RateMeter } from "./rateMeter";

/** Samples kept per series: one per {@link SAMPLE_MS} over the last ~10 s. */
const SAMPLES = 100;
const SAMPLE_MS = 100;
const LANE_H = 30;

interface Series {
  label: string;
  unit: string;
  color: string;
  /** Ring buffer of values, oldest overwritten. */
  values: Float32Array;
}

/**
 * The net graph (Source's `net_graph`, for this engine): one lane per signal over the last ~10 s
 * — ack round trip, gap between state frames and its jitter, the interpolation delay, the
 * prediction correction, bytes in and out per second, and the simulated loss. Sampled 10 times
 * a second from the SDK's live numbers into fixed ring buffers and drawn only while shown (a
 * few hundred canvas line segments), so it costs nothing hidden and little shown.
 */
export class NetGraph {
  /** Whether the panel is shown (key G or its button). */
  visible = false;
  private readonly series: Series[];
  private readonly ctx: CanvasRenderingContext2D;
  private readonly inRate = new RateMeter();
  private readonly outRate = new RateMeter();
  private head = 0;
  private filled = 0;
  private lastSampleAt = -Infinity;
  private lastFrames = -1;
  private lastFrameAt = -Infinity;
  private gapMs = 0;
  private meanGap = 0;
  private jitter = 0;
  /** Samples drawn so far (the browser test reads it through the debug handle). */
  draws = 0;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly session: GameSession,
    private readonly net: NetConditions,
  ) {
    const ctx = canvas.getContext("2d");
    if (!ctx) throw new Error("no 2D context for the net graph");
    this.ctx = ctx;
    const mk = (label: string, unit: string, color: string): Series => ({ label, unit, color, values: new Float32Array(SAMPLES) });
    this.series = [
      mk("ack rtt", "ms", "#5ec8ff"),
      mk("frame gap", "ms", "#9be564"),
      mk("jitter", "ms", "#ffd166"),
      mk("interp delay", "ms", "#c792ea"),
      mk("correction", "u", "#ff6b8b"),
      mk("in", "kB/s", "#7fdbca"),
      mk("out", "kB/s", "#f78c6c"),
      mk("sim. loss", "%", "#ff5370"),
    ];
    canvas.width = 360;
    canvas.height = this.series.length * LANE_H + 6;
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
    const v = [st.rttMs, gap, this.jitter, st.interpolationDelayMs, st.predictionError, this.inRate.rate / 1024, this.outRate.rate / 1024, this.net.current.loss * 100];
    for (let i = 0; i < this.series.length; i++) this.series[i]!.values[this.head] = v[i]!;
    this.head = (this.head + 1) % SAMPLES;
    this.filled = Math.min(SAMPLES, this.filled + 1);
    if (this.visible) this.draw();
  }

  private draw(): void {
    const c = this.ctx;
    const w = this.canvas.width;
    c.clearRect(0, 0, w, this.canvas.height);
    c.font = "11px ui-monospace, monospace";
    const plotX = 120;
    const plotW = w - plotX - 4;
    for (let s = 0; s < this.series.length; s++) {
      const ser = this.series[s]!;
      const top = 3 + s * LANE_H;
      let max = 1e-6;
      for (let i = 0; i < this.filled; i++) max = Math.max(max, ser.values[i]!);
      const latest = ser.values[(this.head + SAMPLES - 1) % SAMPLES]!;
      c.fillStyle = ser.color;
      c.fillText(`${ser.label} ${latest.toFixed(latest < 10 ? 1 : 0)}`, 2, top + 12);
      c.fillStyle = "rgba(255,255,255,0.45)";
      c.fillText(`max ${max.toFixed(max < 10 ? 1 : 0)} ${ser.unit}`, 2, top + 25);
      c.strokeStyle = "rgba(255,255,255,0.1)";
      c.strokeRect(plotX, top, plotW, LANE_H - 4);
      c.strokeStyle = ser.color;
      c.beginPath();
      for (let k = 0; k < this.filled; k++) {
        const value = ser.values[(this.head - this.filled + k + SAMPLES) % SAMPLES]!;
        const x = plotX + (plotW * (SAMPLES - this.filled + k)) / (SAMPLES - 1);
        const y = top + LANE_H - 5 - ((LANE_H - 7) * value) / (max * 1.1);
        if (k === 0) c.moveTo(x, y);
        else c.lineTo(x, y);
      }
      c.stroke();
    }
    this.draws++;
  }
}
