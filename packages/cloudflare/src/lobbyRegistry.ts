/**
 * The lobby's list of live rooms, without a database: rooms report themselves (on player-count
 * changes, debounced, and when they empty) to one registry object per deployment, which keeps a
 * bounded, self-expiring list in memory. Pure logic here; the Durable Object around it is
 * `LobbyObject` (lobbyObject.ts).
 */
import type { RoomReport } from "@tikron/protocol";

/** A listed room: its last report and when it arrived. */
export interface LobbyEntry extends RoomReport {
  /** When the registry got the report, Unix ms. */
  updatedAt: number;
}

/** Most rooms listed; the least recently refreshed go first when more report. */
export const LOBBY_MAX_ROOMS = 200;
/** An entry not refreshed for this long is dropped (rooms with players refresh every minute). */
export const LOBBY_ENTRY_TTL_MS = 5 * 60_000;

const KIND_OR_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Validates a report's shape; null when anything is off (the registry never stores junk). */
export function readRoomReport(v: unknown): RoomReport | null {
  if (typeof v !== "object" || v === null) return null;
  const r = v as Record<string, unknown>;
  const count = (x: unknown, max: number): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= max;
  if (typeof r.kind !== "string" || !KIND_OR_ID.test(r.kind)) return null;
  if (typeof r.roomId !== "string" || !KIND_OR_ID.test(r.roomId)) return null;
  if (!count(r.players, 100_000) || !count(r.bots, 100_000) || !count(r.cap, 100_000)) return null;
  if (typeof r.startedAt !== "number" || !Number.isFinite(r.startedAt)) return null;
  return { kind: r.kind, roomId: r.roomId, players: r.players, bots: r.bots, cap: r.cap, startedAt: r.startedAt };
}

/** The bounded list. Entries are keyed by kind and room id; an empty room is removed. */
export class LobbyRegistry {
  private readonly rooms = new Map<string, LobbyEntry>();

  constructor(
    private readonly maxRooms = LOBBY_MAX_ROOMS,
    private readonly ttlMs = LOBBY_ENTRY_TTL_MS,
  ) {}

  /** Records a report at time `now`; a room with nobody in it (no players, no bots) leaves the list. */
  report(r: RoomReport, now: number): void {
    const key = `${r.kind}:${r.roomId}`;
    this.rooms.delete(key);
    if (r.players + r.bots === 0) return;
    this.rooms.set(key, { ...r, updatedAt: now });
    // Map order is insertion order and a report re-inserts: the first entries are the stalest.
    while (this.rooms.size > this.maxRooms) this.rooms.delete(this.rooms.keys().next().value!);
  }

  /** Live entries at `now`, newest room first; expired ones are dropped on the way. */
  list(now: number): LobbyEntry[] {
    const out: LobbyEntry[] = [];
    for (const [key, e] of this.rooms) {
      if (now - e.updatedAt > this.ttlMs) this.rooms.delete(key);
      else out.push(e);
    }
    return out.sort((a, b) => b.startedAt - a.startedAt);
  }
}
