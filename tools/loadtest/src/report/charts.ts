/**
 * Self-contained SVG line charts for the HTML reports: a pure function from data to markup, no
 * scripts, no fonts or styles fetched from anywhere.
 */

/** One line of a chart. Points with a null y leave a gap. */
export interface ChartSeries {
  name: string;
  points: readonly (readonly [number, number | null])[];
  /** CSS colour; a palette colour by position when absent. */
  color?: string;
  /** Drawn dashed (targets, limits). */
  dashed?: boolean;
}

/** What {@link lineChartSvg} draws. */
export interface LineChart {
  title: string;
  /** Unit of the y axis, shown after the title. */
  unit?: string;
  xLabel?: string;
  series: readonly ChartSeries[];
  width?: number;
  height?: number;
  /** Lower bound of the y axis (default 0, or the data minimum when it is negative). */
  yMin?: number;
  /** Tick labels for x values (e.g. sweep entries); numbers are printed otherwise. */
  xTickLabel?: (x: number) => string;
}

const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#4d7c0f"];

/** Escapes text for SVG/HTML content and attributes. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A "nice" step (1, 2, 5 × 10^k) giving about `n` ticks over `span`. */
function niceStep(span: number, n: number): number {
  if (!(span > 0)) return 1;
  const raw = span / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

const num = (v: number): string => (Math.abs(v) >= 1000 ? `${Math.round(v / 100) / 10}k` : String(Math.round(v * 100) / 100));

/** Renders a line chart as an `<svg>` element (a string). */
export function lineChartSvg(c: LineChart): string {
  const W = c.width ?? 560;
  const H = c.height ?? 240;
  const m = { l: 52, r: 12, t: 28, b: 36 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const all = c.series.flatMap((s) => s.points.filter((p): p is readonly [number, number] => p[1] !== null && Number.isFinite(p[1])));
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const x0 = xs.length ? Math.min(...xs) : 0;
  const x1 = xs.length ? Math.max(...xs) : 1;
  const yLo = Math.min(c.yMin ?? 0, ...(ys.length ? ys : [0]));
  let yHi = ys.length ? Math.max(...ys) : 1;
  if (yHi <= yLo) yHi = yLo + 1;
  const yStep = niceStep(yHi - yLo, 4);
  const yTop = Math.ceil(yHi / yStep) * yStep;
  const yBot = Math.floor(yLo / yStep) * yStep;
  const sx = (x: number): number => m.l + (x1 === x0 ? pw / 2 : ((x - x0) / (x1 - x0)) * pw);
  const sy = (y: number): number => m.t + ph - ((y - yBot) / (yTop - yBot)) * ph;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(c.title)}">`);
  out.push(`<text x="${m.l}" y="16" font-size="13" font-weight="600">${esc(c.title)}${c.unit ? ` <tspan font-weight="400" fill="#555">(${esc(c.unit)})</tspan>` : ""}</text>`);
  for (let y = yBot; y <= yTop + yStep / 2; y += yStep) {
    const py = sy(y).toFixed(1);
    out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${py}" y2="${py}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${m.l - 6}" y="${py}" font-size="10" text-anchor="end" dominant-baseline="middle" fill="#555">${num(y)}</text>`);
  }
  const xStep = c.xTickLabel ? 1 : niceStep(x1 - x0, 6);
  for (let x = Math.ceil(x0 / xStep) * xStep; x <= x1 + 1e-9; x += xStep) {
    const px = sx(x).toFixed(1);
    out.push(`<text x="${px}" y="${m.t + ph + 14}" font-size="10" text-anchor="middle" fill="#555">${esc(c.xTickLabel ? c.xTickLabel(x) : num(x))}</text>`);
  }
  out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${m.t + ph}" y2="${m.t + ph}" stroke="#9ca3af"/>`);
  if (c.xLabel) out.push(`<text x="${m.l + pw}" y="${H - 4}" font-size="10" text-anchor="end" fill="#555">${esc(c.xLabel)}</text>`);
  let lx = m.l + 8;
  c.series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    let d = "";
    let pen = false;
    for (const [x, y] of s.points) {
      if (y === null || !Number.isFinite(y)) {
        pen = false;
        continue;
      }
      d += `${pen ? "L" : "M"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`;
      pen = true;
    }
    if (d) {
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="1.8"${s.dashed ? ' stroke-dasharray="5 4"' : ""} data-series="${esc(s.name)}"/>`);
      // A lone point would be invisible as a path: mark every point when there are few.
      if (s.points.length <= 12) {
        for (const [x, y] of s.points) if (y !== null && Number.isFinite(y)) out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.5" fill="${color}"/>`);
      }
    }
    out.push(`<rect x="${lx}" y="${m.t - 9}" width="10" height="3" fill="${color}"/><text x="${lx + 14}" y="${m.t - 5}" font-size="10">${esc(s.name)}</text>`);
    lx += 24 + s.name.length * 6;
  });
  if (all.length === 0) out.push(`<text x="${m.l + pw / 2}" y="${m.t + ph / 2}" font-size="12" text-anchor="middle" fill="#999">no data</text>`);
  out.push("</svg>");
  return out.join("");
}
