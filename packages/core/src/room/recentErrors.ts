/**
 * The last errors a room sent its clients (or hit itself), for the operator's view of the room.
 * A fixed ring of entries written in place: recording one is a few field writes, so the error
 * paths (a refused input can be one per frame) stay free of allocation.
 */
import type { AdminRoomError } from "@tikron/protocol";

/** Errors kept per room. */
export const RECENT_ERRORS = 32;

interface Entry {
  at: number;
  name: string;
  reason: string;
  playerId: number;
}

/** A ring of the {@link RECENT_ERRORS} most recent errors. */
export class RecentErrors {
  private readonly ring: Entry[] = Array.from({ length: RECENT_ERRORS }, () => ({ at: 0, name: "", reason: "", playerId: 0 }));
  private n = 0;

  /** Records one error; `playerId` 0 for none (a socket before hello, the room itself). */
  record(at: number, name: string, reason: string, playerId: number): void {
    const e = this.ring[this.n % RECENT_ERRORS]!;
    e.at = at;
    e.name = name;
    e.reason = reason;
    e.playerId = playerId;
    this.n++;
  }

  /** Errors recorded so far, all time. */
  get count(): number {
    return this.n;
  }

  /** The kept errors, oldest first (copies). */
  list(): AdminRoomError[] {
    const k = Math.min(this.n, RECENT_ERRORS);
    const out: AdminRoomError[] = [];
    for (let i = this.n - k; i < this.n; i++) {
      const e = this.ring[i % RECENT_ERRORS]!;
      out.push({ at: e.at, name: e.name, reason: e.reason, playerId: e.playerId === 0 ? null : e.playerId });
    }
    return out;
  }
}
