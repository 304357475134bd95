import type { PlayerClaims } from "../player";
import type { QueueSpec } from "./matchmakingSpec";

/** One player waiting in a queue. */
export interface QueueEntry {
  /** The client's id for this wait (it cancels with it). */
  queueId: string;
  /** Who is waiting; one identity waits once per queue. */
  identity: string;
  /** The player's rating. */
  rating: number;
  /** When it joined the queue (matchmaker clock). */
  enqueuedAt: number;
  /** The sign-in claims the player was verified with (its seat's player gets them); a party's are its seats'. */
  claims?: PlayerClaims;
  /**
   * A party's entry: who it seats (its members, each with its claims), in order; `rating` is
   * then their mean. Absent: one player, {@link identity}.
   */
  seats?: readonly QueueSeat[];
}

/** One seat a party's queue entry takes: the member's identity and sign-in claims. */
export interface QueueSeat {
  /** The identity the seat is bound to. */
  identity: string;
  /** The member's sign-in claims (its seat's player gets them). */
  claims?: PlayerClaims;
}

/** Seats an entry takes in a group: its party's members, or one. */
export function seatsOf(e: QueueEntry): number {
  return e.seats?.length ?? 1;
}

/** The rating window of a player who has waited `waitedMs`. */
export function ratingWindow(spec: Required<QueueSpec>, waitedMs: number): number {
  const w = spec.ratingWindow;
  return Math.min(w.max, w.initial + (w.widenPerSec * Math.max(0, waitedMs)) / 1000);
}

/**
 * Players (and parties) waiting to be grouped, and the grouping rule: a group is entries whose
 * seats add up to `groupSize` and whose ratings all lie within the window of every entry (max −
 * min ≤ the narrowest window; a party counts as one entry of its members' mean rating, so a party
 * of `groupSize` is a group by itself), and the longest-waiting entry is served first. Pure: the
 * matchmaker owns the timers and seats the groups this returns.
 */
export class MatchQueue {
  private readonly waiting = new Map<string, QueueEntry>();
  private readonly byIdentity = new Map<string, string>();

  constructor(private readonly spec: Required<QueueSpec>) {}

  /** Players waiting. */
  get size(): number {
    return this.waiting.size;
  }

  /** Adds a player; returns the entry it replaces (the same identity waiting already), if any. */
  add(e: QueueEntry): QueueEntry | undefined {
    const oldId = this.byIdentity.get(e.identity);
    const old = oldId !== undefined ? this.waiting.get(oldId) : undefined;
    if (old) this.remove(old.queueId);
    const clash = this.waiting.get(e.queueId);
    if (clash) this.remove(clash.queueId);
    this.waiting.set(e.queueId, e);
    this.byIdentity.set(e.identity, e.queueId);
    return old ?? clash;
  }

  /** The entry of a queue id, if waiting. */
  get(queueId: string): QueueEntry | undefined {
    return this.waiting.get(queueId);
  }

  /** Takes a player out (cancelled, timed out, or grouped). */
  remove(queueId: string): QueueEntry | undefined {
    const e = this.waiting.get(queueId);
    if (!e) return undefined;
    this.waiting.delete(queueId);
    if (this.byIdentity.get(e.identity) === queueId) this.byIdentity.delete(e.identity);
    return e;
  }

  /** Takes out and returns every player who has waited `timeoutMs` or longer at `now`. */
  takeExpired(now: number): QueueEntry[] {
    const out: QueueEntry[] = [];
    for (const e of this.waiting.values()) if (now - e.enqueuedAt >= this.spec.timeoutMs) out.push(e);
    for (const e of out) this.remove(e.queueId);
    return out;
  }

  /**
   * Forms every group it can at `now` and takes its entries out of the queue. For each waiting
   * entry, oldest first, the others nearest in rating whose seats still fit are added until the
   * group has `groupSize` seats; the group is kept when its spread fits the narrowest window
   * among its entries.
   */
  takeGroups(now: number): QueueEntry[][] {
    const size = this.spec.groupSize;
    const groups: QueueEntry[][] = [];
    let seats = 0;
    for (const e of this.waiting.values()) seats += seatsOf(e);
    if (seats < size) return groups;
    const byAge = [...this.waiting.values()].sort((a, b) => a.enqueuedAt - b.enqueuedAt || (a.queueId < b.queueId ? -1 : 1));
    const byRating = byAge.slice().sort((a, b) => a.rating - b.rating);
    const taken = new Set<QueueEntry>();
    for (const anchor of byAge) {
      if (taken.has(anchor)) continue;
      const group = this.nearest(anchor, byRating, taken, size);
      if (!group || !this.fits(group, now)) continue;
      for (const e of group) {
        taken.add(e);
        this.remove(e.queueId);
      }
      groups.push(group);
    }
    return groups;
  }

  /**
   * The anchor and the untaken entries nearest it in rating (two pointers outward) until the
   * group has `size` seats; an entry with more seats than are left is passed over for good.
   */
  private nearest(anchor: QueueEntry, byRating: QueueEntry[], taken: ReadonlySet<QueueEntry>, size: number): QueueEntry[] | null {
    const at = byRating.indexOf(anchor);
    const group = [anchor];
    let filled = seatsOf(anchor);
    if (filled > size) return null;
    let lo = at - 1;
    let hi = at + 1;
    const skip = (e: QueueEntry): boolean => taken.has(e) || seatsOf(e) > size - filled;
    while (filled < size) {
      while (lo >= 0 && skip(byRating[lo]!)) lo--;
      while (hi < byRating.length && skip(byRating[hi]!)) hi++;
      const left = lo >= 0 ? byRating[lo]! : undefined;
      const right = hi < byRating.length ? byRating[hi]! : undefined;
      if (!left && !right) return null;
      const next = right && (!left || right.rating - anchor.rating < anchor.rating - left.rating) ? right : left!;
      group.push(next);
      filled += seatsOf(next);
      if (next === right) hi++;
      else lo--;
    }
    return group;
  }

  private fits(group: QueueEntry[], now: number): boolean {
    let min = Infinity;
    let max = -Infinity;
    let window = Infinity;
    for (const e of group) {
      min = Math.min(min, e.rating);
      max = Math.max(max, e.rating);
      window = Math.min(window, ratingWindow(this.spec, now - e.enqueuedAt));
    }
    return max - min <= window;
  }
}
