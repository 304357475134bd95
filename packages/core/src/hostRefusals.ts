/**
 * The joins a host refuses before any room sees them, counted by cause, and the per-address
 * budget that decides how a refused upgrade is answered. A refused join is an upgrade closed at
 * once with its close code, because a browser cannot read the HTTP status of a failed upgrade;
 * that costs the runtime a socket pair. A caller that keeps being refused is not a browser
 * waiting to read why: past its address's budget its refusals are plain HTTP answers (401, 403,
 * 404, …, as a request without an upgrade gets), which cost the runtime what any small answer
 * costs. Per isolate (Cloudflare) or process (Node), best effort: forgetting an address only
 * gives it a fresh budget.
 */
import { REFUSAL_CAUSES, type AdminRefusals, type RefusalCause } from "@tikron/protocol";
import { TokenBucket } from "./tokenBucket";

/** Refused upgrades one address may have answered as a close before its refusals turn plain. */
export const REFUSAL_UPGRADE_BURST = 50;
/** How fast that budget comes back (per second). */
export const REFUSAL_UPGRADE_PER_SEC = 5;
/** Addresses kept before the budget memory starts over. */
const MAX_ADDRESSES = 4096;

/**
 * Whether a refusal of `cause` spends its address's budget: the final ones, which the same
 * request meets again however often it is sent (no credential, a bad one, a wrong path or
 * origin). Not a wait to honour (`throttled`) nor a server that admits no one now (`unavailable`).
 */
export function spendsBudget(cause: RefusalCause): boolean {
  return cause !== "throttled" && cause !== "unavailable";
}

/** Counts since the last report (see {@link HostRefusals.takeReport}). */
export interface RefusalReport {
  /** Refusals by cause in the interval. */
  byCause: Record<RefusalCause, number>;
  /** Of those, upgrades answered plain. */
  plain: number;
  /** The interval's length (ms). */
  intervalMs: number;
}

function zeroes(): Record<RefusalCause, number> {
  const out = {} as Record<RefusalCause, number>;
  for (const c of REFUSAL_CAUSES) out[c] = 0;
  return out;
}

/** A host's refusals and their budget (see the module comment). */
export class HostRefusals {
  /** When counting started (Unix ms). */
  readonly since: number;
  readonly #total = zeroes();
  #totalPlain = 0;
  #interval = zeroes();
  #intervalPlain = 0;
  #intervalStart: number;
  readonly #budget = new Map<string, TokenBucket>();

  constructor(now = Date.now()) {
    this.since = now;
    this.#intervalStart = now;
  }

  /** One refusal of `cause`. */
  count(cause: RefusalCause): void {
    this.#total[cause]++;
    this.#interval[cause]++;
  }

  /**
   * Whether a refused upgrade from `address` (null: unknown; all such share one budget) is still
   * answered as an upgrade closed at once; false past its budget, counted as a plain answer.
   * Only final refusals spend the budget ({@link spendsBudget}): a wait (`throttled`) or a server
   * that cannot admit anyone now (`unavailable`) is always a close, which the client must read.
   */
  upgradeAllowed(address: string | null, now: number, cause?: RefusalCause): boolean {
    if (cause !== undefined && !spendsBudget(cause)) return true;
    const key = address ?? "";
    let bucket = this.#budget.get(key);
    if (bucket === undefined) {
      if (this.#budget.size >= MAX_ADDRESSES) this.#budget.clear();
      bucket = new TokenBucket(REFUSAL_UPGRADE_PER_SEC, REFUSAL_UPGRADE_BURST, now);
      this.#budget.set(key, bucket);
    }
    if (bucket.take(now)) return true;
    this.#totalPlain++;
    this.#intervalPlain++;
    return false;
  }

  /** Everything counted so far (the admin API's answer). */
  snapshot(): AdminRefusals {
    return { since: this.since, byCause: { ...this.#total }, plain: this.#totalPlain };
  }

  /**
   * The counts of the interval that started at the last report, once `intervalMs` has passed
   * (then a new interval starts); null before that, or when nothing was refused in it.
   */
  takeReport(now: number, intervalMs: number): RefusalReport | null {
    const length = now - this.#intervalStart;
    if (length < intervalMs) return null;
    const report: RefusalReport = { byCause: this.#interval, plain: this.#intervalPlain, intervalMs: length };
    this.#interval = zeroes();
    this.#intervalPlain = 0;
    this.#intervalStart = now;
    return REFUSAL_CAUSES.some((c) => report.byCause[c] > 0) ? report : null;
  }
}
