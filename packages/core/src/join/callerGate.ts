/**
 * What the gateway remembers about callers the room has refused, so that a caller who keeps
 * knocking is answered by the Worker, without a trip into the room's Durable Object (whose one
 * thread runs the game) and without verifying its ticket again.
 *
 * The room stays the judge of its rules (room/admission.ts): the gateway repeats an answer the
 * room gave, for the room's `Retry-After`, and holds back a caller's burst of upgrades beyond
 * the number of sockets the room lets one caller have waiting anyway. One rule is the
 * gateway's own: a caller the room refuses again soon after its last wait ended is told to wait
 * twice as long (up to {@link MAX_BACKOFF_MS}), so a client that honours Retry-After backs off
 * instead of knocking once a second. Per isolate and best effort: an isolate sees only some of
 * a caller's requests, and forgetting costs nothing but a trip.
 */

/** Entries kept before the refusal memory starts over (it only ever saves trips). */
const MAX_REMEMBERED = 4096;
/** Longest wait the gateway's doubling asks for (the room's own abuse cooldown is 10 s). */
export const MAX_BACKOFF_MS = 8_000;
/** A refusal within this long after the previous wait ended counts as coming straight back. */
const REPEAT_WINDOW_MS = 10_000;

interface Remembered {
  until: number;
  /** Refusals in a row, each soon after the previous wait ended (0 for the first). */
  repeats: number;
}

/** A refusal the gateway answers itself: the ms left until the room's `Retry-After`. */
export interface GateRefusal {
  /** Ms until the caller may try again. */
  retryAfterMs: number;
  /** "remembered": the room refused this caller and its wait is not over; "burst": too many of its upgrades are in the room at once. */
  why: "remembered" | "burst";
}

/** Per-isolate memory of refused callers and of each caller's upgrades in flight to the room. */
export class CallerGate {
  /** Refusals (deadline in epoch ms), by caller key and by ticket (`t:` + the ticket text). */
  private readonly refused = new Map<string, Remembered>();
  private readonly inFlight = new Map<string, number>();

  /**
   * Before the ticket is verified: a ticket the room refused (after it was verified) is the same
   * caller, so its retry is answered from memory. Only tickets that passed verification are ever
   * remembered, so a forged ticket cannot land here; it goes on to be refused by verification.
   */
  checkTicket(ticket: string, now: number): GateRefusal | null {
    return this.remembered(`t:${ticket}`, now);
  }

  /**
   * After verification, with the caller's key (ticket player id, else address): a remembered
   * refusal, or a burst: `maxInFlight` of the caller's upgrades are already in the room (a caller
   * may have only that many sockets waiting for hello, so the room would refuse the rest).
   * Null means forward it, and call {@link forwarded} then {@link answered}.
   */
  checkCaller(key: string, maxInFlight: number, now: number): GateRefusal | null {
    const r = this.remembered(key, now);
    if (r) return r;
    if ((this.inFlight.get(key) ?? 0) >= maxInFlight) return { retryAfterMs: 1000, why: "burst" };
    return null;
  }

  /** An upgrade from `key` went to the room. */
  forwarded(key: string): void {
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
  }

  /**
   * The room answered `key`'s upgrade; a 429 is remembered under the caller's key and its
   * ticket for its `Retry-After` (seconds), doubled for each refusal in a row that came soon
   * after the previous wait ended (capped at {@link MAX_BACKOFF_MS}, never below the room's).
   * Returns the wait to announce in seconds (0 unless a 429).
   */
  answered(key: string, ticket: string | null, status: number, retryAfterSeconds: number, now: number): number {
    const left = (this.inFlight.get(key) ?? 1) - 1;
    if (left > 0) this.inFlight.set(key, left);
    else this.inFlight.delete(key);
    if (status !== 429) return 0;
    if (this.refused.size >= MAX_REMEMBERED) this.refused.clear();
    const roomMs = 1000 * (retryAfterSeconds > 0 ? retryAfterSeconds : 1);
    const last = this.refused.get(key);
    const repeats = last && now - last.until < REPEAT_WINDOW_MS ? last.repeats + 1 : 0;
    const waitMs = Math.max(roomMs, Math.min(MAX_BACKOFF_MS, roomMs * 2 ** repeats));
    const entry = { until: now + waitMs, repeats };
    this.refused.set(key, entry);
    if (ticket !== null) this.refused.set(`t:${ticket}`, entry);
    return Math.ceil(waitMs / 1000);
  }

  private remembered(key: string, now: number): GateRefusal | null {
    const r = this.refused.get(key);
    if (r === undefined) return null;
    if (r.until > now) return { retryAfterMs: r.until - now, why: "remembered" };
    // Kept a while after the wait ends: a refusal soon after counts as a repeat.
    if (now - r.until >= REPEAT_WINDOW_MS) this.refused.delete(key);
    return null;
  }
}
