/**
 * A chart of a few signals over time, one lane each (label, latest value, lane maximum, a line):
 * the net graph's drawing, and the admin console's room chart. Samples go into fixed ring
 * buffers; drawing is a few hundred canvas line segments and allocates nothing per sample.
 */

/** One signal of a {@link LaneChart}. */
export interface Lane {
  /** Shown before the latest value. */
  label: string;
  /** Shown after the lane's maximum. */
  unit: string;
  /** Line and label colour. */
  color: string;
}

const LABEL_W = 120;

/** Lanes of ring-buffered samples drawn on one canvas. */
export class LaneChart {
  private readonly values: Float32Array[];
  private readonly ctx: CanvasRenderingContext2D;
  private head = 0;
  private filled = 0;
  /** Times the chart was drawn (tests read it). */
  draws = 0;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly lanes: readonly Lane[],
    private readonly samples = 100,
    private readonly laneH = 30,
    width = 360,
  ) {
    const ctx = canvas.getContext("2d");
    if (!ctx) throw new Error("no 2D context for the chart");
    this.ctx = ctx;
    this.values = lanes.map(() => new Float32Array(samples));
    canvas.width = width;
    canvas.height = lanes.length * laneH + 6;
  }

  /** Samples taken so far (at most the ring's length). */
  get length(): number {
    return this.filled;
  }

  /** Adds one sample per lane, in lane order. */
  push(values: readonly number[]): void {
    for (let i = 0; i < this.lanes.length; i++) this.values[i]![this.head] = values[i] ?? 0;
    this.head = (this.head + 1) % this.samples;
    this.filled = Math.min(this.samples, this.filled + 1);
  }

  /** Draws every lane. */
  draw(): void {
    const { ctx: c, canvas, samples: n, laneH } = this;
    const w = canvas.width;
    c.clearRect(0, 0, w, canvas.height);
    c.font = "11px ui-monospace, monospace";
    const plotW = w - LABEL_W - 4;
    for (let s = 0; s < this.lanes.length; s++) {
      const lane = this.lanes[s]!;
      const ring = this.values[s]!;
      const top = 3 + s * laneH;
      let max = 1e-6;
      for (let i = 0; i < this.filled; i++) max = Math.max(max, ring[i]!);
      const latest = ring[(this.head + n - 1) % n]!;
      c.fillStyle = lane.color;
      c.fillText(`${lane.label} ${latest.toFixed(latest < 10 ? 1 : 0)}`, 2, top + 12);
      c.fillStyle = "rgba(255,255,255,0.45)";
      c.fillText(`max ${max.toFixed(max < 10 ? 1 : 0)} ${lane.unit}`, 2, top + 25);
      c.strokeStyle = "rgba(255,255,255,0.1)";
      c.strokeRect(LABEL_W, top, plotW, laneH - 4);
      c.strokeStyle = lane.color;
      c.beginPath();
      for (let k = 0; k < this.filled; k++) {
        const value = ring[(this.head - this.filled + k + n) % n]!;
        const x = LABEL_W + (plotW * (n - this.filled + k)) / (n - 1);
        const y = top + laneH - 5 - ((laneH - 7) * value) / (max * 1.1);
        if (k === 0) c.moveTo(x, y);
        else c.lineTo(x, y);
      }
      c.stroke();
    }
    this.draws++;
  }
}
