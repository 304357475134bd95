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
  /** The sign-in claims the player was verified with (its seat's player gets them). */
  claims?: PlayerClaims;
}

/** The rating window of a player who has waited `waitedMs`. */
export function ratingWindow(spec: Required<QueueSpec>, waitedMs: number): number {
  const w = spec.ratingWindow;
  return Math.min(w.max, w.initial + (w.widenPerSec * Math.max(0, waitedMs)) / 1000);
}

/**
 * Players waiting to be grouped, and the grouping rule: a group is `groupSize` players whose
 * ratings all lie within the window of every member (max − min ≤ the narrowest member window),
 * and the longest-waiting player is served first. Pure: the matchmaker owns the timers and
 * seats the groups this returns.
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
   * Forms every group it can at `now` and takes its members out of the queue. For each waiting
   * player, oldest first, the `groupSize − 1` others nearest in rating are tried; the group is
   * kept when its spread fits the narrowest window among its members.
   */
  takeGroups(now: number): QueueEntry[][] {
    const size = this.spec.groupSize;
    const groups: QueueEntry[][] = [];
    if (this.waiting.size < size) return groups;
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

  /** The anchor and the `size − 1` untaken players nearest it in rating (two pointers outward). */
  private nearest(anchor: QueueEntry, byRating: QueueEntry[], taken: ReadonlySet<QueueEntry>, size: number): QueueEntry[] | null {
    const at = byRating.indexOf(anchor);
    const group = [anchor];
    let lo = at - 1;
    let hi = at + 1;
    while (group.length < size) {
      while (lo >= 0 && taken.has(byRating[lo]!)) lo--;
      while (hi < byRating.length && taken.has(byRating[hi]!)) hi++;
      const left = lo >= 0 ? byRating[lo]! : undefined;
      const right = hi < byRating.length ? byRating[hi]! : undefined;
      if (!left && !right) return null;
      if (right && (!left || right.rating - anchor.rating < anchor.rating - left.rating)) {
        group.push(right);
        hi++;
      } else {
        group.push(left!);
        lo--;
      }
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
