import type { Clock } from "../clock";
import { RoomStats } from "../roomStats";
import type { RoomHooks } from "../host";

interface OpenSession {
  startedAt: number;
  peakCcu: number;
  joins: number;
  refusals: number;
  closes: Record<string, number>;
}

/**
 * Counts what happens to a room's seats twice: for the room's lifetime in `tk:stats`, and for
 * the current session (first seat taken → last seat freed), whose record goes to the
 * `onSessionEnd` hook. Keeping both counts here keeps them from disagreeing.
 */
export class SessionTracker {
  private session: OpenSession | null = null;

  constructor(
    private readonly kind: string,
    private readonly roomId: string,
    private readonly clock: Clock,
    private readonly stats: RoomStats,
    private readonly hooks: RoomHooks,
  ) {}

  /** A seat is about to be filed; in an empty room without a session that starts one. */
  seatTaken(roomIsEmpty: boolean): void {
    if (!roomIsEmpty || this.session) return;
    const startedAt = this.clock.now();
    this.session = { startedAt, peakCcu: 0, joins: 0, refusals: 0, closes: {} };
    this.hooks.onSessionStart?.({ kind: this.kind, roomId: this.roomId, startedAt });
  }

  /** A new player joined (not a reconnect). */
  joined(): void {
    this.stats.joins++;
    if (this.session) this.session.joins++;
  }

  /** A socket took a seat; `connectedCount` is the room's count after it. */
  connected(connectedCount: number): void {
    if (connectedCount > this.stats.peakCcu) this.stats.peakCcu = connectedCount;
    if (this.session && connectedCount > this.session.peakCcu) this.session.peakCcu = connectedCount;
  }

  /** A hello was refused (`room_full`, `join_throttled`). */
  refused(reason: string): void {
    RoomStats.bump(this.stats.refused, reason);
    if (this.session) this.session.refusals++;
  }

  /** A socket closed, by either side, with `code`. */
  closed(code: number): void {
    RoomStats.bump(this.stats.closes, code);
    if (this.session) RoomStats.bump(this.session.closes, code);
  }

  /** The last seat was freed: the session ends and its record goes to the hook. */
  lastSeatFreed(): void {
    const s = this.session;
    if (!s) return;
    this.session = null;
    this.hooks.onSessionEnd?.({
      kind: this.kind,
      roomId: this.roomId,
      startedAt: s.startedAt,
      endedAt: this.clock.now(),
      peakCcu: s.peakCcu,
      totalJoins: s.joins,
      refusals: s.refusals,
      closes: s.closes,
    });
  }
}
