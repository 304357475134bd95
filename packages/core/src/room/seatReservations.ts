import type { Clock, TimerHandle } from "../clock";
import type { PlayerClaims } from "../player";
import type { PendingReservation } from "../match/roomPort";
import type { ReservationCounts } from "../roomStats";

/** One seat a matchmaker asked the room to hold for a player. */
interface Reservation {
  /** The identity the seat is held for; only a socket of that identity may take it. */
  identity: string;
  /** The sign-in claims the match request was verified with: the seat's player gets them. */
  claims: PlayerClaims | undefined;
  /** When it is given up if unused (room clock). */
  expiresAt: number;
  timer: TimerHandle;
}

/**
 * The seats a room holds for players a matchmaker sent: single-use, bound to one identity,
 * counted against the cap while pending (the room adds {@link size} to its seat count), and
 * given up when unused after their lifetime. The room stays the authority for its seats: a
 * reservation is only made when a seat is free, whatever the matchmaker believed.
 */
export class SeatReservations {
  private readonly pending = new Map<string, Reservation>();
  /** The reservation id each identity holds (one per identity: a newer one replaces it). */
  private readonly byIdentity = new Map<string, string>();
  /** Counters behind `tk:stats` `reservations`. */
  readonly counts: ReservationCounts = { made: 0, used: 0, expired: 0, refused: 0, invalid: 0, released: 0 };

  /** @param onChange called when the number of pending reservations changes (listing reports). */
  constructor(
    private readonly clock: Clock,
    private readonly onChange: () => void,
  ) {}

  /** Reservations pending (each holds a seat). */
  get size(): number {
    return this.pending.size;
  }

  /** Whether `identity` holds a pending reservation. */
  holds(identity: string): boolean {
    return this.byIdentity.has(identity);
  }

  /** Whether reservation `id` is pending for `identity`. */
  isHeldFor(id: string, identity: string | undefined): boolean {
    return this.pending.get(id)?.identity === identity;
  }

  /**
   * Holds a seat for `identity` under reservation id `id` for `ttlMs` (the caller checked there
   * is room), with the claims its player was verified with. A reservation the identity already
   * held here is replaced: one player, one seat.
   */
  add(id: string, identity: string, ttlMs: number, claims?: PlayerClaims): void {
    const older = this.byIdentity.get(identity);
    if (older !== undefined) this.drop(older);
    const timer = this.clock.setTimer(() => {
      if (this.pending.get(id)?.timer !== timer) return;
      this.drop(id);
      this.counts.expired++;
      this.onChange();
    }, ttlMs);
    this.pending.set(id, { identity, claims, expiresAt: this.clock.now() + ttlMs, timer });
    this.byIdentity.set(identity, id);
    this.counts.made++;
    this.onChange();
  }

  /**
   * Uses reservation `id` for a socket of `identity`: what it held (its claims), and the
   * reservation is gone, when the room held it for that identity; null otherwise (a reservation
   * of another identity is left in place).
   */
  take(id: string, identity: string | undefined): { claims: PlayerClaims | undefined } | null {
    const r = this.pending.get(id);
    if (!r || r.identity !== identity) {
      this.counts.invalid++;
      return null;
    }
    this.drop(id);
    this.counts.used++;
    this.onChange();
    return { claims: r.claims };
  }

  /**
   * Gives up reservation `id` held for `identity` (a join that named it was refused before it
   * could use it): its seat stops counting at once. Not counted as used, nor as released (the
   * matchmaker's {@link release}): the refusal is counted where it was made.
   */
  giveUp(id: string, identity: string | undefined): void {
    if (this.pending.get(id)?.identity !== identity) return;
    this.drop(id);
    this.onChange();
  }

  /**
   * Gives reservation `id` up before its lifetime ends (its player will not come): true when it
   * was pending for `identity`. A used, expired or unknown id changes nothing.
   */
  release(id: string, identity: string): boolean {
    if (this.pending.get(id)?.identity !== identity) return false;
    this.drop(id);
    this.counts.released++;
    this.onChange();
    return true;
  }

  /** Forgets reservation `id` (its timer too) without counting or reporting. */
  private drop(id: string): void {
    const r = this.pending.get(id);
    if (!r) return;
    this.clock.clearTimer(r.timer);
    this.pending.delete(id);
    if (this.byIdentity.get(r.identity) === id) this.byIdentity.delete(r.identity);
  }

  /** The reservations pending now, each with the time it has left. */
  list(): PendingReservation[] {
    const now = this.clock.now();
    return [...this.pending].map(([id, r]) => ({ id, identity: r.identity, ttlMs: Math.max(0, r.expiresAt - now), ...(r.claims ? { claims: r.claims } : {}) }));
  }

  /** Gives every reservation up (room shutdown). */
  clear(): void {
    for (const r of this.pending.values()) this.clock.clearTimer(r.timer);
    const had = this.pending.size > 0;
    this.pending.clear();
    this.byIdentity.clear();
    if (had) this.onChange();
  }
}
