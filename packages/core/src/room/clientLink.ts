import { CloseCode } from "@tikron/protocol";
import type { Connection } from "../connection";
import type { RoomOptions } from "../roomOptions";
import type { ClientLink } from "../seat";
import { TokenBucket } from "../tokenBucket";

/**
 * Per-socket abuse guards. A socket gets a message budget (token bucket), a protocol-error
 * allowance, spacing between `tk:stats` answers and a hello deadline; the room applies the
 * verdicts (reply, drop, close). Nothing here allocates per message.
 */

/** A fresh link for a socket that has just been accepted (no seat, binary until its hello). */
export function newClientLink(connId: number, connection: Connection, identity: string | undefined, options: RoomOptions, now: number): ClientLink {
  return {
    connId,
    connection,
    dialect: "binary",
    seat: null,
    errors: 0,
    closed: false,
    bucket: new TokenBucket(options.msgRatePerSec, options.msgBurst, now),
    dropped: 0,
    helloTimer: null,
    identity,
    lastStatsAt: -Infinity,
  };
}

/**
 * Milliseconds this link must still wait before its next `tk:stats` answer, or 0 when it may
 * have one now (then the answer is recorded). The probe is the costliest reply a client can
 * ask for (a JSON snapshot), hence its own spacing on top of the message budget.
 */
export function statsWaitMs(link: ClientLink, now: number, minStatsIntervalMs: number): number {
  const wait = link.lastStatsAt + minStatsIntervalMs - now;
  if (wait > 0) return wait;
  link.lastStatsAt = now;
  return 0;
}

/** Closes for abuse: the seat is freed, not held for a reconnect. */
const ABUSE_CLOSES: ReadonlySet<number> = new Set([CloseCode.rate_limited, CloseCode.too_many_errors, CloseCode.frame_too_large]);

/**
 * Whether a close the room sends frees the seat at once. A player who left, or was kicked for
 * abuse, loses the seat (holding it would let one client fill the room by getting kicked over
 * and over); any other close holds it for the reconnection window.
 */
export function closeFreesSeat(code: number): boolean {
  return code === CloseCode.normal || ABUSE_CLOSES.has(code);
}
