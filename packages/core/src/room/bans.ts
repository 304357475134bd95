/**
 * Bans an operator placed on a room (admin API): an admission key — a verified identity, or the
 * address of a caller without one — refused until a time, with the operator's reason. Checked
 * before a socket is accepted and again at its hello; small (operators ban a few players, not
 * thousands), and swept of expired entries whenever it is read.
 */
import type { AdminBan } from "@tikron/protocol";

/** Most bans one room keeps; the one ending soonest makes room for a new one. */
export const MAX_BANS_PER_ROOM = 1024;

/** A room's bans, by admission key. Times are the room clock's (epoch ms in production). */
export class RoomBans {
  private readonly byKey = new Map<string, { until: number; reason: string }>();

  /** The ban on `key` in force at `now`, or null. */
  check(key: string | undefined, now: number): { until: number; reason: string } | null {
    if (key === undefined || this.byKey.size === 0) return null;
    const ban = this.byKey.get(key);
    if (!ban) return null;
    if (ban.until > now) return ban;
    this.byKey.delete(key);
    return null;
  }

  /** Bans `key` until `until` (a later ban replaces an earlier one of the same key). */
  add(key: string, until: number, reason: string, now: number): void {
    this.sweep(now);
    if (!this.byKey.has(key) && this.byKey.size >= MAX_BANS_PER_ROOM) {
      let soonest: string | undefined;
      let at = Infinity;
      for (const [k, b] of this.byKey) if (b.until < at) (soonest = k), (at = b.until);
      if (soonest !== undefined) this.byKey.delete(soonest);
    }
    this.byKey.set(key, { until, reason });
  }

  /** Lifts the ban on `key`; false when there was none. */
  remove(key: string): boolean {
    return this.byKey.delete(key);
  }

  /** The bans in force at `now`, soonest to end first. */
  list(now: number): AdminBan[] {
    this.sweep(now);
    return [...this.byKey].map(([identity, b]) => ({ identity, until: b.until, reason: b.reason })).sort((a, b) => a.until - b.until);
  }

  private sweep(now: number): void {
    for (const [k, b] of this.byKey) if (b.until <= now) this.byKey.delete(k);
  }
}
