/**
 * A simulated player asking the matchmaker for a seat: `POST /match/<kind>` (joinOrCreate) with
 * the run's DEV_MODE overrides as its query and, in production, a match ticket, repeated as the
 * SDK's matchmaker client repeats it: after the wait a retryable refusal names (`rate_limited`,
 * `unavailable`), at most {@link MATCH_TRIES} requests. Once per join, never on the input path.
 */
import { isMatchError, isRetryableMatchError, type SeatReservation } from "@tikron/protocol";
import type { MatchMetrics } from "../metrics/matchMetrics";

/** Requests per player at most, as the SDK's matchmaker client makes them. */
export const MATCH_TRIES = 4;
/** Longest wait before a retry, whatever `retryAfterMs` says: a run's players do not wait out minutes. */
const MAX_RETRY_WAIT_MS = 5_000;
/** The body of every request: the default mode, no filters, no options. */
const JOIN_OR_CREATE = JSON.stringify({ mode: "joinOrCreate" });

/** Where a run's players ask for seats. */
export interface MatchTarget {
  /** `http(s)://host[:port]` of the server (the run's ws(s) URL with an http scheme). */
  httpBase: string;
  /** The room kind (the scenario's). */
  kind: string;
  /** DEV_MODE room overrides, as the request's query (`cap=8`); "" for none. */
  query: string;
  /** Deadline of one request (ms). */
  timeoutMs: number;
}

/** The HTTP base of a run's ws(s) URL: same host and port, http(s) scheme. */
export function httpBase(wsUrl: string): string {
  const u = new URL(wsUrl);
  return `${u.protocol === "wss:" ? "https:" : "http:"}//${u.host}`;
}

/**
 * The URL a player opens for its seat: the answer's path and reservation on the run's own base
 * URL. The run chose the hop (e.g. `--server` goes past wrangler's dev proxy, straight to the
 * Worker), and the answer's host is whatever the server saw the request arrive at.
 */
export function seatUrl(runUrl: string, seat: SeatReservation): string {
  const u = new URL(seat.url);
  return `${runUrl}${u.pathname}${u.search}`;
}

function isSeat(v: unknown): v is SeatReservation {
  const s = v as SeatReservation;
  return typeof v === "object" && v !== null && typeof s.roomId === "string" && typeof s.url === "string" && typeof s.reservation === "string";
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Asks for a seat until answered, refused for good, out of tries, or no longer wanted; every
 * request, answer and refusal lands in `metrics`. Returns the seat, or why there is none (a
 * refusal's code, `timeout`, `network`, `http_<status>`, or what `gone()` said).
 *
 * @param authorization a match ticket (`Bearer` token) or null (DEV_MODE)
 * @param gone why the player no longer wants a seat (its session or the run ended), or null
 * @param maxTries requests at most (1: no retry, as the matchmaker benchmark asks)
 */
export async function requestSeat(
  target: MatchTarget,
  metrics: MatchMetrics,
  authorization: string | null,
  gone: () => string | null,
  maxTries = MATCH_TRIES,
): Promise<SeatReservation | string> {
  const url = `${target.httpBase}/match/${encodeURIComponent(target.kind)}${target.query ? `?${target.query}` : ""}`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (authorization) headers.authorization = `Bearer ${authorization}`;
  for (let tries = 1; ; tries++) {
    metrics.counters.requests++;
    const sentAt = performance.now();
    let status: number;
    let body: unknown;
    try {
      const res = await fetch(url, { method: "POST", headers, body: JOIN_OR_CREATE, signal: AbortSignal.timeout(target.timeoutMs) });
      status = res.status;
      const text = await res.text();
      metrics.answered(performance.now() - sentAt);
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = undefined;
      }
    } catch (e) {
      return e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError") ? "timeout" : "network";
    }
    if (status === 200 && isSeat(body)) {
      metrics.counters.seats++;
      return body;
    }
    if (!isMatchError(body)) return `http_${status}`;
    metrics.refusal(body.code);
    if (!isRetryableMatchError(body.code) || tries >= maxTries) return body.code;
    const why = gone();
    if (why !== null) return why;
    await sleep(Math.min(body.retryAfterMs ?? 0, MAX_RETRY_WAIT_MS));
    const after = gone();
    if (after !== null) return after;
    metrics.counters.retries++;
  }
}
