import { matchesFilters, type MatchFilters } from "@tikron/protocol";
import { isEmptyStatus, isNewerStatus, type RoomStatus } from "./roomStatus";

/** A room as the matchmaker sees it: the room's last word, plus the seats it is asking for now. */
export interface DirectoryEntry {
  /** The room's newest status (a report or a seat answer). */
  status: RoomStatus;
  /** Seat requests this matchmaker has sent the room and not heard back from. */
  inflight: number;
  /** When {@link status} arrived (matchmaker clock). */
  updatedAt: number;
}

/** What {@link RoomDirectory.apply} did with a status. */
export type ApplyResult = "added" | "updated" | "removed" | "stale";

/** An entry whose room refreshes is dropped after this many missed refreshes. */
const MISSED_REFRESHES = 3;

/** Free seats in the matchmaker's view: the cap less seats taken, held, and being asked for. */
export function freeSeats(e: DirectoryEntry): number {
  const s = e.status;
  return s.maxClients - s.clients - s.reserved - e.inflight;
}

/** Whether a request may be placed in `e` at all (ignoring free seats). */
function placeable(e: DirectoryEntry, filters: MatchFilters, overrides: string): boolean {
  const s = e.status;
  return !s.private && !s.locked && s.overrides === overrides && matchesFilters(s.metadata, filters);
}

/** Fullest first (it fills rooms before opening new ones), then oldest, then by id. */
function fullestFirst(a: DirectoryEntry, b: DirectoryEntry): number {
  const fa = a.status.clients + a.status.reserved + a.inflight;
  const fb = b.status.clients + b.status.reserved + b.inflight;
  if (fa !== fb) return fb - fa;
  if (a.status.createdAt !== b.status.createdAt) return a.status.createdAt - b.status.createdAt;
  return a.status.roomId < b.status.roomId ? -1 : a.status.roomId > b.status.roomId ? 1 : 0;
}

/**
 * The rooms of one kind a matchmaker knows: built from the rooms' own reports and seat answers,
 * asked which room a request should go to. It holds no authority over seats: a room it picks
 * may still refuse, and the matchmaker then asks the next.
 */
export class RoomDirectory {
  private readonly rooms = new Map<string, DirectoryEntry>();

  /** Rooms known. */
  get size(): number {
    return this.rooms.size;
  }

  /** The entry of a room, if known. */
  get(roomId: string): DirectoryEntry | undefined {
    return this.rooms.get(roomId);
  }

  /** Every entry (for persistence and tests). */
  entries(): IterableIterator<DirectoryEntry> {
    return this.rooms.values();
  }

  /**
   * Records a room's status unless an equal or newer one is held. An empty room (nobody seated,
   * no seat held) leaves the directory, unless this matchmaker is still asking it for seats.
   */
  apply(status: RoomStatus, now: number): ApplyResult {
    const e = this.rooms.get(status.roomId);
    if (e && !isNewerStatus(status, e.status)) return "stale";
    if (isEmptyStatus(status) && (!e || e.inflight === 0)) {
      if (!e) return "stale";
      this.rooms.delete(status.roomId);
      return "removed";
    }
    if (e) {
      e.status = status;
      e.updatedAt = now;
      return "updated";
    }
    this.rooms.set(status.roomId, { status, inflight: 0, updatedAt: now });
    return "added";
  }

  /** Files a room this matchmaker is creating (its first seat request is in flight). */
  addCreating(status: RoomStatus, now: number): DirectoryEntry {
    const e: DirectoryEntry = { status, inflight: 0, updatedAt: now };
    this.rooms.set(status.roomId, e);
    return e;
  }

  /** Forgets a room (it is gone, or refused as unknown). */
  remove(roomId: string): boolean {
    return this.rooms.delete(roomId);
  }

  /**
   * The room a request should go to: public, unlocked, made with the same overrides, matching
   * the filters, with a free seat; the fullest such room first. Rooms in `exclude` (already
   * tried by this request) are skipped. Linear in the rooms known: a kind with thousands of
   * open rooms wants an index by free seats, or more matchmaker shards.
   */
  pick(filters: MatchFilters, overrides: string, seats = 1, exclude?: ReadonlySet<string>): DirectoryEntry | undefined {
    let best: DirectoryEntry | undefined;
    for (const e of this.rooms.values()) {
      if (freeSeats(e) < seats || !placeable(e, filters, overrides) || exclude?.has(e.status.roomId)) continue;
      if (!best || fullestFirst(e, best) < 0) best = e;
    }
    return best;
  }

  /**
   * Rooms a client may join: public, unlocked, not full, matching the filters (and made with
   * `overrides`, when given); fullest first.
   */
  available(filters: MatchFilters, overrides?: string): DirectoryEntry[] {
    const out: DirectoryEntry[] = [];
    for (const e of this.rooms.values()) {
      const s = e.status;
      if (overrides !== undefined && s.overrides !== overrides) continue;
      if (!s.private && !s.locked && s.clients + s.reserved < s.maxClients && matchesFilters(s.metadata, filters)) out.push(e);
    }
    return out.sort(fullestFirst);
  }

  /**
   * Drops rooms that stopped refreshing (a room that refreshes missed three
   * of them: its object is gone without a last word). Rooms that do not refresh (turn-based
   * ones sleep) stay until they report empty or refuse a seat as unknown. Returns the ids dropped.
   */
  expire(now: number): string[] {
    const gone: string[] = [];
    for (const [id, e] of this.rooms) {
      const r = e.status.refreshMs;
      if (r > 0 && e.inflight === 0 && now - e.updatedAt > MISSED_REFRESHES * r) {
        this.rooms.delete(id);
        gone.push(id);
      }
    }
    return gone;
  }
}
