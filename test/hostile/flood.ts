/**
 * An upgrade flood: `count` WebSocket upgrades started at an even pace over `durationMs`, at most
 * `concurrency` in flight, each answered by a close (a refused join, read after the upgrade), an
 * HTTP status without an upgrade, or a socket that stayed open (admitted: closed again at once).
 * Bounded in count and time; traffic goes only to the URLs given (the suite uses loopback).
 */
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import WebSocket from "ws";

/** How a flood's upgrades were answered. */
export interface FloodTally {
  /** Upgrades started. */
  sent: number;
  /** Closed right after the upgrade, by close code. */
  closes: Record<string, number>;
  /** Answered with an HTTP status instead of an upgrade, by status. */
  statuses: Record<string, number>;
  /** Upgraded and not closed within the settle time: the server let the socket in. */
  admitted: number;
  /** Network errors, timeouts. */
  failed: number;
  /** Time from the request to its answer, p50 / p99 (ms). */
  answerP50: number;
  answerP99: number;
  /** Wall time from the first upgrade to the last answer (ms). */
  wallMs: number;
}

/** What to flood. */
export interface FloodOptions {
  /** The URL of upgrade `i` (a fixed URL, or one per attempt: forged tickets, say). */
  url: (i: number) => string;
  count: number;
  durationMs: number;
  /** Upgrades in flight at most (default 128). */
  concurrency?: number;
  /**
   * How long an opened socket is watched for a close before it counts as admitted (default
   * 3 s: a refused upgrade is closed at once, but on a loaded machine "at once" can take a while).
   */
  settleMs?: number;
  /** Extra request headers (an `Origin`, say). */
  headers?: Record<string, string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function q(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

/** One upgrade and how it was answered. */
function attempt(url: string, settleMs: number, headers: Record<string, string> | undefined): Promise<{ close?: number; status?: number; admitted?: true; failed?: true }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: 10_000, ...(headers ? { headers } : {}) });
    let done = false;
    const finish = (r: { close?: number; status?: number; admitted?: true; failed?: true }) => {
      if (done) return;
      done = true;
      resolve(r);
      ws.terminate();
    };
    ws.on("unexpected-response", (_req, res) => {
      res.resume();
      finish({ status: res.statusCode ?? 0 });
    });
    ws.on("error", () => finish({ failed: true }));
    ws.on("close", (code) => finish({ close: code }));
    ws.on("open", () => setTimeout(() => finish({ admitted: true }), settleMs));
  });
}

/** Runs the flood; resolves once every upgrade was answered. */
export async function upgradeFlood(o: FloodOptions): Promise<FloodTally> {
  const concurrency = o.concurrency ?? 128;
  const settleMs = o.settleMs ?? 3_000;
  const tally: FloodTally = { sent: 0, closes: {}, statuses: {}, admitted: 0, failed: 0, answerP50: NaN, answerP99: NaN, wallMs: 0 };
  const answerMs: number[] = [];
  const spacing = o.durationMs / Math.max(1, o.count);
  const start = performance.now();
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < o.count; i++) {
    // Even pace; a server that answers slowly holds the loop at `concurrency` in flight.
    const due = start + i * spacing;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    while (inFlight >= concurrency) await sleep(2);
    // Never past twice the planned duration, whatever the server does.
    if (performance.now() - start > 2 * o.durationMs + 10_000) break;
    inFlight++;
    tally.sent++;
    const t0 = performance.now();
    pending.push(
      attempt(o.url(i), settleMs, o.headers).then((r) => {
        inFlight--;
        if (r.close !== undefined) {
          tally.closes[r.close] = (tally.closes[r.close] ?? 0) + 1;
          answerMs.push(performance.now() - t0);
        } else if (r.status !== undefined) {
          tally.statuses[r.status] = (tally.statuses[r.status] ?? 0) + 1;
          answerMs.push(performance.now() - t0);
        } else if (r.admitted) tally.admitted++;
        else tally.failed++;
      }),
    );
  }
  await Promise.all(pending);
  tally.wallMs = performance.now() - start;
  tally.answerP50 = q(answerMs, 0.5);
  tally.answerP99 = q(answerMs, 0.99);
  return tally;
}

/** Upgrades the flood saw refused (closed with one of `codes`, or any HTTP 4xx). */
export function refusedCount(t: FloodTally, codes: readonly number[]): number {
  let n = 0;
  for (const c of codes) n += t.closes[c] ?? 0;
  for (const [s, k] of Object.entries(t.statuses)) if (Number(s) >= 400 && Number(s) < 500) n += k;
  return n;
}

/** A flood job for a worker thread: the URLs themselves (a function cannot cross threads). */
interface FloodJob {
  /** Marks this thread as ours (test runners run test files in worker threads too). */
  hostileFlood: true;
  urls: string[];
  durationMs: number;
  concurrency?: number;
  settleMs?: number;
  headers?: Record<string, string>;
}

/**
 * Runs a flood of `urls` (one upgrade each) in a worker thread, so opening and tearing down its
 * sockets does not sit in the event loop that timestamps the honest players' acks.
 */
export function upgradeFloodInThread(o: Omit<FloodOptions, "url" | "count"> & { urls: string[] }): Promise<FloodTally> {
  return new Promise((resolve, reject) => {
    const job: FloodJob = { hostileFlood: true, urls: o.urls, durationMs: o.durationMs };
    if (o.concurrency !== undefined) job.concurrency = o.concurrency;
    if (o.settleMs !== undefined) job.settleMs = o.settleMs;
    if (o.headers !== undefined) job.headers = o.headers;
    const worker = new Worker(new URL(import.meta.url), { workerData: job, execArgv: ["--import", "tsx"] });
    let tally: FloodTally | null = null;
    // Bounded even if the thread hangs: the flood itself stops at twice its duration.
    const guard = setTimeout(() => void worker.terminate(), 2 * o.durationMs + 30_000);
    worker.once("message", (t: FloodTally) => (tally = t));
    worker.once("error", (e) => {
      clearTimeout(guard);
      reject(e);
    });
    worker.once("exit", (code) => {
      clearTimeout(guard);
      if (tally) resolve(tally);
      else reject(new Error(`flood thread exited with code ${code} and no tally`));
    });
  });
}

if (!isMainThread && parentPort && (workerData as Partial<FloodJob> | null)?.hostileFlood === true) {
  const job = workerData as FloodJob;
  const tally = await upgradeFlood({ ...job, url: (i) => job.urls[i]!, count: job.urls.length });
  parentPort.postMessage(tally);
}
