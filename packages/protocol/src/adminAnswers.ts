/**
 * What the admin API answers (its contract: admin.ts): a room's counters over an interval, the
 * room list and one room's detail, the audit log, recorded matches and refused joins. One
 * definition for every host and the console page.
 */
import type { RoomMetadata } from "./match";

/**
 * One room's counters over one sampling interval: what the hosts write to Workers Analytics
 * Engine (one data point per room per interval) and keep in memory for the admin API. Counts
 * are deltas over the interval; `clients` and `seats` are the values at its end; `flushP99Ms`
 * the 99th percentile of the room's recent flushes.
 */
export interface MetricPoint {
  /** End of the interval (Unix ms). */
  at: number;
  /** Length of the interval (ms). */
  intervalMs: number;
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** Connected players at the end. */
  clients: number;
  /** Seats taken at the end (connected or held). */
  seats: number;
  /** State frames sent. */
  frames: number;
  /** Bytes sent to clients. */
  bytesOut: number;
  /** Bytes received from clients. */
  bytesIn: number;
  /** Messages received from clients. */
  messagesIn: number;
  /** Errors (every `tk:stats` `errors` counter). */
  errors: number;
  /** Socket closes (every close code). */
  closes: number;
  /** 99th percentile flush time (ms) of the recent flushes. */
  flushP99Ms: number;
}

/** A room in the admin list: what its matchmaker knows, and a summary of its `tk:stats`. */
export interface AdminRoomSummary {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** Seats taken (players and bots, connected or held). */
  clients: number;
  /** Bots among them. */
  bots: number;
  /** Seats held for reservations. */
  reserved: number;
  /** Seat cap. */
  maxClients: number;
  /** Takes no new players. */
  locked: boolean;
  /** Never listed or picked. */
  private: boolean;
  /** When the room was created (Unix ms). */
  createdAt: number;
  /** The game's metadata. */
  metadata: RoomMetadata;
  /** The room's own counters, or null when it could not be asked. */
  stats: AdminStatsSummary | null;
}

/** A few `tk:stats` numbers of one room. */
export interface AdminStatsSummary {
  /** Connected players. */
  ccu: number;
  /** Seats taken. */
  seats: number;
  /** ms since the room was made (this instance). */
  uptimeMs: number;
  /** State frames sent. */
  frames: number;
  /** Bytes sent. */
  bytesOut: number;
  /** Errors of every kind. */
  errors: number;
  /** Socket closes of every code. */
  closes: number;
  /** 99th percentile flush time of the recent flushes (ms). */
  flushP99Ms: number;
}

/** `GET /admin/api/rooms`. */
export interface AdminRoomList {
  /** Every room the matchmakers know, newest first. */
  rooms: AdminRoomSummary[];
  /** Kinds whose matchmaker could not be asked (their rooms are missing from the list). */
  unavailable: string[];
}

/** One seat as the operator sees it. */
export interface AdminSeat {
  /** Player id in the room. */
  playerId: number;
  /** Display name. */
  name: string;
  /** The verified identity bound to the seat (ticket player id, `jwt:<sub>`), or null (anonymous). */
  identity: string | null;
  /** A live socket sits on it. */
  connected: boolean;
  /** One of the room's bots. */
  bot: boolean;
  /** Held for a reconnect: ms left of the window; null while connected. */
  heldForMs: number | null;
  /** Highest input seq applied. */
  lastSeq: number;
  /** Bytes sent the client has not confirmed (receipts): a client falling behind shows here. */
  backlogBytes: number;
  /**
   * Round trip to the client (ms) when the room knows it; the room answers pings but does not see
   * their round trip, so today always null (the SDK's net graph shows it client-side).
   */
  rttMs: number | null;
}

/** One error the room sent a client (or hit itself), most recent last. */
export interface AdminRoomError {
  /** When (Unix ms). */
  at: number;
  /** The error's name (`bad_input`, `rate_limited`, `internal`, …). */
  name: string;
  /** Its reason. */
  reason: string;
  /** The seat it went to, or null (a socket before hello, or the room itself). */
  playerId: number | null;
}

/** A ban in force. */
export interface AdminBan {
  /** The banned identity. */
  identity: string;
  /** When it ends (Unix ms). */
  until: number;
  /** The operator's reason. */
  reason: string;
}

/** `GET /admin/api/rooms/<kind>/<roomId>`. */
export interface AdminRoomDetail {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** Every seat, connected or held. */
  seats: AdminSeat[];
  /** The room's recent errors, oldest first. */
  errors: AdminRoomError[];
  /** Bans in force. */
  bans: AdminBan[];
  /** Metadata, lock and visibility. */
  listing: {
    /** Takes no new players. */
    locked: boolean;
    /** Never listed or picked. */
    private: boolean;
    /** The game's metadata. */
    metadata: RoomMetadata;
  };
  /** The full `tk:stats` snapshot. */
  stats: unknown;
  /** Recent metric points, oldest first. */
  metrics: MetricPoint[];
}

/** One recorded admin action (`GET /admin/api/audit`). */
export interface AuditEntry {
  /** Row id, increasing. */
  id: number;
  /** When (Unix ms). */
  at: number;
  /** Who: `token` (the admin token) or `access:<email>` (a Cloudflare Access sign-in). */
  actor: string;
  /** The action ({@link AdminActionOp}). */
  action: string;
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** The action's body as sent (JSON text). */
  detail: string;
  /** `ok`, or the refusal's {@link AdminErrorCode}. */
  result: string;
}

/** A recorded match, as a host lists it (`GET /admin/api/replays/<kind>`). */
export interface MatchSummary {
  /** The match's id ({@link MATCH_ID_PATTERN}; its log's name in the host's store). */
  matchId: string;
  /** The room's kind. */
  kind: string;
  /** The room's id. */
  roomId: string;
  /** Room time 0 of the match (epoch ms). */
  startedAt: number;
  /** When the match ended (epoch ms). */
  endedAt: number;
  /** Players seated during the match (distinct player ids, bots included). */
  players: number;
  /** The log's size in bytes. */
  bytes: number;
  /** Why it ended: `disposed` (the room was let go or closed), `handed_over` (a restart took it on), `limit` (the record's length or size limit). */
  reason: string;
}

/**
 * Why a host refused a join before any room saw it (counted per cause): no credential; one that
 * is `malformed`, `forged` (a signature that does not verify, a key the provider does not
 * publish, an algorithm not accepted), `expired` (or not valid yet, or living too long), or a
 * valid one for another room, kind, issuer or audience (`wrong_room`); credentials naming two
 * players (`two_identities`); an unknown kind or path (`not_found`); a malformed room id or
 * override (`bad_request`); a foreign origin or a DEV_MODE-only request (`forbidden`); joins not
 * configured, or the sign-in provider unreachable (`unavailable`); and the host's own
 * `join_throttled` answers to a caller the room refused moments ago (`throttled`).
 */
export const REFUSAL_CAUSES = ["no_credential", "malformed", "forged", "expired", "wrong_room", "two_identities", "not_found", "bad_request", "forbidden", "unavailable", "throttled"] as const;

/** One of {@link REFUSAL_CAUSES}. */
export type RefusalCause = (typeof REFUSAL_CAUSES)[number];

/**
 * The joins a host refused before any room (`GET /admin/api/refusals`): on Cloudflare the Worker
 * isolate that answered (each isolate counts its own; the Analytics Engine points add them up),
 * on the Node host the process.
 */
export interface AdminRefusals {
  /** When counting started (Unix ms): the isolate's or process's start. */
  since: number;
  /** Refusals by cause, since {@link since}. */
  byCause: Record<RefusalCause, number>;
  /**
   * Of those, refused upgrades answered with a plain HTTP status instead of an upgrade closed at
   * once, because their address had used its budget of refusals read as a close.
   */
  plain: number;
}
