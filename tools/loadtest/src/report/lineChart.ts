/**
 * A small SVG line chart as a pure function of its data, for result files and HTML reports: one
 * x axis, one y axis, several series, optional guide lines (thresholds) and marked points (e.g.
 * a failed run). No dependencies and no DOM; the output is a standalone `<svg>` element.
 */

/** One point; `y: null` leaves a gap in the line. `marked` draws a cross (e.g. a failed point). */
export interface ChartPoint {
  x: number;
  y: number | null;
  marked?: boolean;
}

/** One line. */
export interface ChartSeries {
  name: string;
  points: readonly ChartPoint[];
  /** CSS colour; picked from a fixed palette when omitted. */
  color?: string;
}

/** What to draw. */
export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly ChartSeries[];
  /** Horizontal guides, e.g. a threshold: drawn dashed with their label. */
  guides?: readonly { y: number; label: string }[];
  width?: number;
  height?: number;
  /** Axis bounds; by default they fit the data (y from 0) with rounded ticks. */
  xMin?: number;
  xMax?: number;
  yMin?: number;
  yMax?: number;
}

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];

/** Escapes text for SVG content and attributes. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * Rounded tick values covering [min, max] with about `count` steps of 1, 2 or 5 × 10^k. The first
 * tick is ≤ min and the last ≥ max.
 */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(Number.isFinite(min) && Number.isFinite(max))) return [0, 1];
  if (max <= min) max = min + 1;
  const raw = (max - min) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const first = Math.floor(min / step) * step;
  const ticks: number[] = [];
  // Up to the first tick at or above max (a hair of float error tolerated, not a whole step).
  for (let k = 0; ticks.length < 50; k++) {
    const v = first + k * step;
    ticks.push(Number(v.toPrecision(12)));
    if (v >= max - step * 1e-9) break;
  }
  return ticks;
}

const fmt = (v: number): string => (Math.abs(v) >= 1000 || Number.isInteger(v) ? String(Math.round(v)) : String(Number(v.toPrecision(3))));
const px = (v: number): string => v.toFixed(1);

/** Renders the chart as a standalone SVG element string. */
export function lineChartSvg(o: LineChartOptions): string {
  const width = o.width ?? 640;
  const height = o.height ?? 260;
  const m = { left: 56, right: 150, top: 28, bottom: 40 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const xs = o.series.flatMap((s) => s.points.map((p) => p.x));
  const ys = [...o.series.flatMap((s) => s.points.map((p) => p.y).filter((y): y is number => y !== null)), ...(o.guides ?? []).map((g) => g.y)];
  const xTicks = niceTicks(o.xMin ?? (xs.length ? Math.min(...xs) : 0), o.xMax ?? (xs.length ? Math.max(...xs) : 1));
  const yTicks = niceTicks(o.yMin ?? Math.min(0, ...ys), o.yMax ?? (ys.length ? Math.max(...ys) : 1));
  const [x0, x1] = [xTicks[0], xTicks[xTicks.length - 1]];
  const [y0, y1] = [yTicks[0], yTicks[yTicks.length - 1]];
  const sx = (x: number): number => m.left + ((x - x0) / (x1 - x0 || 1)) * plotW;
  const sy = (y: number): number => m.top + plotH - ((y - y0) / (y1 - y0 || 1)) * plotH;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  out.push(`<text x="${m.left}" y="16" font-size="13" font-weight="bold">${escapeXml(o.title)}</text>`);
  for (const t of yTicks) {
    out.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${px(sy(t))}" y2="${px(sy(t))}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${m.left - 6}" y="${px(sy(t) + 4)}" text-anchor="end">${fmt(t)}</text>`);
  }
  for (const t of xTicks) out.push(`<text x="${px(sx(t))}" y="${m.top + plotH + 15}" text-anchor="middle">${fmt(t)}</text>`);
  out.push(`<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + plotH}" stroke="#333"/>`);
  out.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${m.top + plotH}" y2="${m.top + plotH}" stroke="#333"/>`);
  out.push(`<text x="${m.left + plotW / 2}" y="${height - 6}" text-anchor="middle">${escapeXml(o.xLabel)}</text>`);
  out.push(`<text transform="translate(14 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(o.yLabel)}</text>`);
  for (const g of o.guides ?? []) {
    out.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${px(sy(g.y))}" y2="${px(sy(g.y))}" stroke="#999" stroke-dasharray="5 4"/>`);
    out.push(`<text x="${m.left + plotW - 4}" y="${px(sy(g.y) - 4)}" text-anchor="end" fill="#666">${escapeXml(g.label)}</text>`);
  }
  o.series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length];
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    // A null y breaks the line into separate runs.
    let d = "";
    let pen = false;
    for (const p of pts) {
      if (p.y === null) {
        pen = false;
        continue;
      }
      d += `${pen ? "L" : "M"}${px(sx(p.x))} ${px(sy(p.y))} `;
      pen = true;
    }
    if (d) out.push(`<path d="${d.trim()}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of pts) {
      if (p.y === null) continue;
      const cx = sx(p.x);
      const cy = sy(p.y);
      out.push(
        p.marked
          ? `<path d="M${px(cx - 4)} ${px(cy - 4)}L${px(cx + 4)} ${px(cy + 4)}M${px(cx - 4)} ${px(cy + 4)}L${px(cx + 4)} ${px(cy - 4)}" stroke="${color}" stroke-width="2"/>`
          : `<circle cx="${px(cx)}" cy="${px(cy)}" r="3" fill="${color}"/>`,
      );
    }
    const ly = m.top + 8 + i * 16;
    out.push(`<line x1="${width - m.right + 12}" x2="${width - m.right + 30}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${width - m.right + 34}" y="${ly + 4}">${escapeXml(s.name)}</text>`);
  });
  out.push("</svg>");
  return out.join("\n");
}

/** Stacks standalone SVG charts of equal width vertically into one SVG document. */
export function stackSvgs(charts: readonly { svg: string; width: number; height: number }[]): string {
  const width = Math.max(0, ...charts.map((c) => c.width));
  const height = charts.reduce((s, c) => s + c.height, 0);
  let y = 0;
  const parts = charts.map((c) => {
    const placed = c.svg.replace(/^<svg /, `<svg x="0" y="${y}" `);
    y += c.height;
    return placed;
  });
  return [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`, ...parts, "</svg>", ""].join("\n");
}
