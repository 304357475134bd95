import type { RoomData } from "../metrics/roomMetrics";
import { summarize, type Summary } from "../metrics/summary";
import { figureValue, LIVE_FIGURES } from "./figures";
import { checkThresholdNames, compare, parseThreshold, type ParsedThreshold, type Term } from "./parse";

/** What thresholds are judged on: a report's summary and its mergeable data, all rooms merged and each room. */
export interface Measured {
  readonly summary: Summary;
  readonly total: RoomData;
  readonly rooms: readonly RoomData[];
}

/** Outcome of one threshold against one report. */
export interface ThresholdCheck {
  /** The threshold as written. */
  threshold: string;
  ok: boolean;
  /** What was measured (and the limit when it is computed), or why nothing was. */
  actual: string;
}

const fmt = (v: number): string => String(Math.round(v * 1000) / 1000);

function sumTerms(terms: readonly Term[], get: (name: string) => number | null | undefined): number | string {
  let v = 0;
  for (const t of terms) {
    if ("value" in t) v += t.sign * t.value;
    else {
      const x = get(t.figure);
      if (x === null || x === undefined) return `${t.figure} not measured`;
      v += t.sign * x;
    }
  }
  return v;
}

function judge(p: ParsedThreshold, get: (name: string) => number | null | undefined): { ok: boolean; actual: string; value: number | null } {
  const actual = get(p.figure);
  if (actual === undefined) return { ok: false, actual: `unknown figure ${p.figure}`, value: null };
  if (actual === null) return { ok: false, actual: `${p.figure} not measured`, value: null };
  const limit = sumTerms(p.rhs, get);
  if (typeof limit === "string") return { ok: false, actual: limit, value: actual };
  const computed = p.rhs.length > 1 || "figure" in p.rhs[0]!;
  return { ok: compare(actual, p.op, limit), actual: `${fmt(actual)}${computed ? ` (limit ${fmt(limit)})` : ""}`, value: actual };
}

/** Per-room summaries are computed once per report and reused across thresholds. */
const roomSummaries = new WeakMap<Measured, Summary[]>();

function roomSummary(r: Measured, i: number): Summary {
  let list = roomSummaries.get(r);
  if (!list) {
    list = r.rooms.map((d: RoomData) => summarize([d], d, []));
    roomSummaries.set(r, list);
  }
  return list[i]!;
}

/** Evaluates one threshold against a finished report. */
export function evaluateThreshold(r: Measured, text: string): ThresholdCheck {
  let p: ParsedThreshold;
  try {
    p = parseThreshold(text);
    checkThresholdNames(p);
  } catch (e) {
    return { threshold: text, ok: false, actual: e instanceof Error ? e.message : String(e) };
  }
  const scope = p.scope;
  if (scope.kind === "total") {
    const res = judge(p, (n) => figureValue(n, r.summary, r.total, false));
    return { threshold: p.source, ok: res.ok, actual: res.actual };
  }
  const indices = scope.kind === "room" ? [scope.index] : r.rooms.map((_, i) => i);
  if (indices.length === 0 || indices.some((i) => i >= r.rooms.length)) {
    return { threshold: p.source, ok: false, actual: `the report has ${r.rooms.length} room(s)` };
  }
  const failed: string[] = [];
  let shown = "";
  for (const i of indices) {
    const res = judge(p, (n) => figureValue(n, roomSummary(r, i), r.rooms[i]!, true));
    if (!res.ok) failed.push(`${r.rooms[i]!.roomId}: ${res.actual}`);
    else if (!shown) shown = `${r.rooms[i]!.roomId}: ${res.actual}`;
  }
  if (failed.length) return { threshold: p.source, ok: false, actual: failed.slice(0, 3).join("; ") + (failed.length > 3 ? `; +${failed.length - 3} more` : "") };
  return { threshold: p.source, ok: true, actual: indices.length > 1 ? `all ${indices.length} rooms (e.g. ${shown})` : shown };
}

/** Evaluates every threshold. */
export function evaluateThresholds(r: Measured, list: readonly string[]): ThresholdCheck[] {
  return list.map((t) => evaluateThreshold(r, t));
}

/** A threshold judged on each live sample: total scope, a live figure, a plain-number limit. */
export interface LiveThreshold {
  source: string;
  parsed: ParsedThreshold;
  field: string;
}

/** The thresholds of `list` that can be judged while the run goes (see {@link LIVE_FIGURES}). */
export function liveThresholds(list: readonly string[]): LiveThreshold[] {
  const out: LiveThreshold[] = [];
  for (const t of list) {
    const p = parseThreshold(t);
    const field = LIVE_FIGURES[p.figure];
    if (p.scope.kind !== "total" || !field || p.rhs.some((x) => "figure" in x)) continue;
    out.push({ source: p.source, parsed: p, field });
  }
  return out;
}

/** The first live threshold a sample breaks, with what it measured; null when all hold or cannot be judged yet. */
export function liveBreach(list: readonly LiveThreshold[], sample: Readonly<Record<string, unknown>>): { threshold: string; actual: string } | null {
  for (const t of list) {
    const v = sample[t.field];
    if (typeof v !== "number" || !Number.isFinite(v)) continue;
    const res = judge(t.parsed, (n) => (n === t.parsed.figure ? v : null));
    if (!res.ok) return { threshold: t.source, actual: res.actual };
  }
  return null;
}
