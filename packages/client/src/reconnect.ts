import { CloseCode, FINAL_CLOSES } from "@tikron/protocol";
import { Backoff, type BackoffOptions } from "./backoff";

/**
 * Reconnection tunables: the {@link BackoffOptions}. How long a seat must hold before the backoff
 * starts over (5 s) is fixed.
 */
export type ReconnectOptions = BackoffOptions;

/** A joined connection that stays up this long resets the backoff (ms). */
export const STABLE_AFTER_MS = 5000;

/** The retry of a deliberate restart (`reconnect`, `switchTo`): the next attempt starts at once, the backoff fresh. */
export const RESTART = { attempt: 0, delayMs: 0 };

/** What to do about one socket close. */
export type ReconnectDecision =
  | {
      /** Try again. */
      reconnect: true;
      /** After this long (ms). */
      delayMs: number;
      /** 1 for the first retry since the connection was last stable. */
      attempt: number;
    }
  | {
      /** Give up. */
      reconnect: false;
      /** Why: a close code retrying cannot help, the attempts are used up, or reconnecting is off. */
      why: "fatal_code" | "attempts_exhausted" | "disabled";
    };

/** True when a close with this code may be retried (transport drops, overload, pacing): not one of the protocol's `FINAL_CLOSES`. */
export function isRetryableClose(code: number): boolean {
  return !FINAL_CLOSES.has(code);
}

/**
 * @internal Whether a socket closed with `code` may be retried: a retryable code, or a
 * `bad_hello` after the server refused the held token (`tokenRejected`: the seat is gone, but
 * joining afresh can work). {@link ReconnectPolicy} and the connection both decide with it.
 */
export function mayRetry(code: number, tokenRejected: boolean): boolean {
  return isRetryableClose(code) || (tokenRejected && code === CloseCode.bad_hello);
}

/**
 * Decides, close by close, whether and when to reconnect: a {@link Backoff} (its delays and
 * attempt count) with the close-code rules and the join pacing on top. Pure state: no timers, no
 * sockets, so the policy is testable on its own; the connection owns the scheduling.
 */
export class ReconnectPolicy extends Backoff {
  /** False when reconnecting was turned off (`reconnect: false`). */
  declare readonly enabled: boolean;

  constructor(options: ReconnectOptions | false = {}) {
    super(options || {});
    this.enabled = options !== false;
  }

  /**
   * One close of a socket that was not closed deliberately (a deliberate close never asks).
   * `retryAfterMs` is the largest delay an ERROR on that socket, or its close reason, asked for;
   * it is honoured for any code, not only `join_throttled`. `tokenRejected` (a `bad_token` error came first) makes
   * a following `bad_hello` retryable: the held seat is gone, but joining afresh can work.
   */
  onClose(code: number, context: { retryAfterMs?: number; tokenRejected?: boolean } = {}): ReconnectDecision {
    if (!this.enabled) return { reconnect: false, why: "disabled" };
    if (!mayRetry(code, !!context.tokenRejected)) return { reconnect: false, why: "fatal_code" };
    // The server's pause goes under the jitter.
    const delayMs = this.next(context.retryAfterMs);
    return delayMs === null ? { reconnect: false, why: "attempts_exhausted" } : { reconnect: true, delayMs, attempt: this.attempts };
  }

  /** The connection stayed joined long enough (5 s): forget earlier failures (the same as {@link reset}). */
  markStable(): void {
    this.reset();
  }
}
