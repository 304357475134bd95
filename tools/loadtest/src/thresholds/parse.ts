/**
 * The threshold language: `[scope]figure op expression`, e.g. `ack.p99<150`,
 * `frames_per_s>=19.8`, `ack.p99<=tick_ms+30`, `room:flush.p99<=20`, `rooms[2].clients.joined==20`.
 *
 * - figure: a dotted name from {@link FIGURES} (or `scenario.<counter>`).
 * - op: `<`, `<=`, `>`, `>=`, `==`, `!=`.
 * - expression: numbers and figure names joined by `+` and `-` (the room's announced tick and
 *   sync interval make budgets like "tick + 30 ms" expressible).
 * - scope: none = all rooms merged; `room:` = every room must hold it (the worst room is shown);
 *   `rooms[i].` = room i only (0-based, in report order).
 */

import { isFigure } from "./figures";

/** Comparison operators, longest first so `<=` is not read as `<`. */
const OPS = ["<=", ">=", "==", "!=", "<", ">"] as const;
export type ThresholdOp = (typeof OPS)[number];

/** Where a threshold applies. */
export type ThresholdScope = { kind: "total" } | { kind: "every-room" } | { kind: "room"; index: number };

/** One term of the right-hand side: a signed number or a signed figure. */
export type Term = { sign: 1 | -1; value: number } | { sign: 1 | -1; figure: string };

/** A parsed threshold. */
export interface ParsedThreshold {
  /** The expression as written (whitespace removed). */
  source: string;
  scope: ThresholdScope;
  figure: string;
  op: ThresholdOp;
  rhs: Term[];
}

const NAME = /^[a-z][a-z0-9_]*(\.[A-Za-z0-9_-]+)*$/;
const NUMBER = /^\d+(\.\d+)?$/;

/** Parses one threshold; throws a message quoting it and saying what is wrong. */
export function parseThreshold(text: string): ParsedThreshold {
  const src = text.replace(/\s+/g, "");
  const fail = (why: string): never => {
    throw new Error(`threshold "${text}": ${why}`);
  };
  let rest = src;
  let scope: ThresholdScope = { kind: "total" };
  const roomIdx = /^rooms\[(\d+)\]\./.exec(rest);
  if (rest.startsWith("room:")) {
    scope = { kind: "every-room" };
    rest = rest.slice(5);
  } else if (roomIdx) {
    scope = { kind: "room", index: Number(roomIdx[1]) };
    rest = rest.slice(roomIdx[0].length);
  }
  let at = -1;
  let op: ThresholdOp | null = null;
  for (let i = 0; i < rest.length && op === null; i++) {
    for (const o of OPS) {
      if (rest.startsWith(o, i)) {
        at = i;
        op = o;
        break;
      }
    }
  }
  if (op === null) return fail(`no comparison (use one of ${OPS.join(" ")})`);
  const figure = rest.slice(0, at);
  if (!NAME.test(figure)) fail(`"${figure}" is not a figure name`);
  const expr = rest.slice(at + op.length);
  if (expr.length === 0) fail("nothing to compare with");
  const rhs: Term[] = [];
  const parts = expr.split(/(?=[+-])/);
  for (const part of parts) {
    const sign: 1 | -1 = part.startsWith("-") ? -1 : 1;
    const body = part.replace(/^[+-]/, "");
    if (NUMBER.test(body)) rhs.push({ sign, value: Number(body) });
    else if (NAME.test(body)) rhs.push({ sign, figure: body });
    else fail(`"${part}" is neither a number nor a figure name`);
  }
  return { source: src, scope, figure, op, rhs };
}

/** Applies a comparison. */
export function compare(actual: number, op: ThresholdOp, limit: number): boolean {
  switch (op) {
    case "<":
      return actual < limit;
    case "<=":
      return actual <= limit;
    case ">":
      return actual > limit;
    case ">=":
      return actual >= limit;
    case "==":
      return actual === limit;
    case "!=":
      return actual !== limit;
  }
}

/** Checks that every figure a threshold names exists; throws naming the unknown one. */
export function checkThresholdNames(p: ParsedThreshold): void {
  for (const name of [p.figure, ...p.rhs.flatMap((t) => ("figure" in t ? [t.figure] : []))]) {
    if (!isFigure(name)) throw new Error(`threshold "${p.source}": unknown figure "${name}" (see README, Figures)`);
  }
}

/** Parses and name-checks a list of thresholds (config validation). */
export function parseThresholds(list: readonly string[]): ParsedThreshold[] {
  return list.map((t) => {
    const p = parseThreshold(t);
    checkThresholdNames(p);
    return p;
  });
}
