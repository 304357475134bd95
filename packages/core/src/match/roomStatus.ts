import type { RoomListing, RoomMetadata } from "@tikron/protocol";

/**
 * What a room tells its matchmaker about itself: its public listing (seats, reservations, cap,
 * metadata) and what only the matchmaker reads, in every answer to a seat request and in the
 * reports it sends off the tick path when its seats, reservations, metadata or lock change. The
 * matchmaker's directory is made of these; the room stays the authority for its seats.
 */
export interface RoomStatus extends RoomListing {
  /** A locked room takes no new players (e.g. a match that started). */
  locked: boolean;
  /** A private room is never listed or picked; it is joined by id. */
  private: boolean;
  /**
   * Orders reports of one room: `[instance start, change count]`. A report older than the one
   * the directory holds (reports and answers travel on different paths) is ignored.
   */
  version: [number, number];
  /**
   * Key of the room's creation overrides (DEV_MODE `?cap=…`; "" for none): a request only
   * matches rooms made with the same overrides.
   */
  overrides: string;
  /** How often the room re-reports while it has players (ms); 0 when it does not (it may sleep). */
  refreshMs: number;
}

/** How a room is listed when it is created (by a matchmaker, or by a first join). */
export interface ListingInit {
  /** Initial metadata (from the create request's options). */
  metadata?: RoomMetadata;
  /** A private room is never listed or picked by a matchmaker; it is joined by id. */
  private?: boolean;
  /** Key of the DEV_MODE overrides the room was made with ("" for none). */
  overrides?: string;
}

/** What a room's checkpoint keeps of its listing: a restarted room is listed as it was. */
export interface SavedListing {
  /** The room's metadata. */
  metadata: RoomMetadata;
  /** Never listed or picked. */
  private: boolean;
  /** Takes no new players. */
  locked: boolean;
}

/** True when status `a` is newer than `b` (see {@link RoomStatus.version}). */
export function isNewerStatus(a: RoomStatus, b: RoomStatus): boolean {
  return a.version[0] !== b.version[0] ? a.version[0] > b.version[0] : a.version[1] > b.version[1];
}

/** True when nobody is in the room and no seat is held for anyone: the room may go. */
export function isEmptyStatus(s: RoomStatus): boolean {
  return s.clients === 0 && s.reserved === 0;
}

/** The public listing of a room (`GET /match/<kind>/rooms`). */
export function toListing(s: RoomStatus): RoomListing {
  return { roomId: s.roomId, clients: s.clients, bots: s.bots, reserved: s.reserved, maxClients: s.maxClients, metadata: s.metadata, createdAt: s.createdAt };
}

/** Checks a status that crossed a process boundary; null when anything is off. */
export function readRoomStatus(v: unknown): RoomStatus | null {
  if (typeof v !== "object" || v === null) return null;
  const s = v as Record<string, unknown>;
  const count = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= 1_000_000;
  if (typeof s.roomId !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(s.roomId)) return null;
  if (!count(s.clients) || !count(s.bots) || !count(s.reserved) || !count(s.maxClients) || !count(s.refreshMs)) return null;
  if (typeof s.locked !== "boolean" || typeof s.private !== "boolean" || typeof s.overrides !== "string") return null;
  if (typeof s.createdAt !== "number" || !Number.isFinite(s.createdAt)) return null;
  if (!Array.isArray(s.version) || s.version.length !== 2 || !s.version.every((n) => typeof n === "number" && Number.isFinite(n))) return null;
  if (typeof s.metadata !== "object" || s.metadata === null || Array.isArray(s.metadata)) return null;
  for (const m of Object.values(s.metadata)) if (typeof m !== "string" && typeof m !== "number" && typeof m !== "boolean") return null;
  return s as unknown as RoomStatus;
}
