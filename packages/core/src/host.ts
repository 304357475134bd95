/**
 * What a host (a runtime adapter: the Cloudflare Durable Object, the Node server) and its rooms
 * say to each other, in one place. The host implements {@link Connection} for each socket and,
 * if it wants to hear of a room's life, {@link RoomHooks}; it makes rooms with `createRoom` and
 * talks to one only through `HostedRoom` and its views by who asks (hostedRoom.ts). Everything
 * else in the core is the room's own.
 */
import type { SavedListing } from "./match/roomStatus";
import type { AdminBan, AdminRoomError, AdminSeat } from "@tikron/protocol";
import type { SeatPlayer } from "./player";
import type { RoomMadeWith } from "./roomMadeWith";
import type { RoomOptions } from "./roomOptions";

/**
 * One client socket as the room sees it: the host wraps its runtime's socket (a Workers
 * WebSocket, a `ws` socket; tests use an in-memory fake). The core never touches a runtime
 * socket directly.
 */
export interface Connection {
  /**
   * Sends one binary or text message. Must not throw (adapters swallow send-after-close).
   * Binary `data` is a view of the room's reused writer, valid only during the call: the room
   * sends every frame without copying it, so an adapter whose socket keeps the bytes past the
   * call (e.g. `ws` queueing them) must copy; one whose runtime copies on send (workerd) need not.
   */
  send(data: Uint8Array | string): void;
  /** Closes the socket with an application close code and a short reason. */
  close(code: number, reason: string): void;
  /** True for a room's own bot players (no socket; the room encodes no frames for them). */
  readonly bot?: boolean;
  /** Bytes queued but not yet written to the network, where the runtime exposes it (else 0). */
  bufferedAmount(): number;
}

/** Optional observers of a room's life; never called on the tick path. */
export interface RoomHooks {
  /** A session started (first seat taken in an empty room). */
  onSessionStart?(info: { kind: string; roomId: string; startedAt: number }): void;
  /** The last seat was freed. */
  onSessionEnd?(record: RoomSessionRecord): void;
  /** A socket took (or retook) a seat: adapters persist the ticket to survive restarts. */
  onSeated?(connId: number, ticket: SeatTicket): void;
  /**
   * A seat came to be or was freed: `record` brings it back after a restart (null: the seat is
   * gone). Called synchronously when a hello takes a new seat, before its welcome is sent, so a
   * host that writes it durably right here holds the welcome until it is kept (a Durable
   * Object's output gate): every welcomed seat comes back. Also when a socket that survived a
   * restart is seated in a seat the room did not hold, and when a seat is freed for good. Not
   * called for seats a checkpoint restores (they are kept already).
   */
  onSeatRecord?(playerId: number, record: CheckpointSeat | null): void;
  /**
   * What a matchmaker knows the room by changed (`HostedRoom.status`): seats taken, held or
   * freed, seat reservations, metadata, lock or visibility. Called synchronously from those
   * changes: hosts report it off the tick path, coalesced (core/match `StatusReporter`).
   */
  onStatusChange?(): void;
  /**
   * Something a restart would need changed. `soon` true: a turn-based game's state or the
   * game's store, a ticking room going quiet (its last socket gone, the loop stopped: what comes
   * before an idle object's eviction), or its last seat freed (nothing to keep) — save at once.
   * Seats themselves are kept through {@link onSeatRecord}. `soon` false: a ticking room's
   * periodic checkpoint (`RoomOptions.checkpointMs`: seats' input seqs and the game's world),
   * called right after the tick it falls on, so a host that takes `HostedRoom.checkpoint`
   * on its next turn takes it in the slack before the next tick; it need not hold the room's
   * frames back until the write is durable. A host that persists checkpoints batches these;
   * the room calls it freely.
   */
  onCheckpointDue?(soon: boolean): void;
  /**
   * The game deferred work (`ctx.defer`): keep the runtime alive until it settles (Cloudflare:
   * `waitUntil`). The promise never rejects (failures are logged and counted by the room).
   */
  onDeferred?(work: Promise<unknown>): void;
}

/** A room session (first seat taken → last seat freed), reported for durable records. */
export interface RoomSessionRecord {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** Session start (epoch ms): the first seat taken. */
  startedAt: number;
  /** Session end (epoch ms): the last seat freed. */
  endedAt: number;
  /** Most players connected at once. */
  peakCcu: number;
  /** New seats taken during the session. */
  totalJoins: number;
  /** Joins refused during the session. */
  refusals: number;
  /** Socket closes by close name. */
  closes: Record<string, number>;
}

/** What a restored socket carries across a runtime restart (e.g. in a WebSocket attachment). */
export interface SeatTicket {
  /** The seat's player id in the room. */
  playerId: number;
  /** The seat's reconnect token. */
  token: string;
  /** The display name given at join. */
  name: string;
  /** True when the socket speaks the JSON dialect (the field name is kept: tickets are persisted). */
  json: boolean;
  /** Verified external player id the seat is bound to (see `HostedRoom.open`). */
  identity?: string;
  /**
   * The rest of the seat's `Player` record: an anonymous seat's identity, the claims, the join
   * options (each left out when empty; see `SeatPlayer`). What makes the record whole after a restart.
   */
  player?: SeatPlayer;
}

/**
 * What a room persists so a restart loses nothing a player would notice: every seat (id, token,
 * name, bound identity, the rest of its player record, last applied seq) and, when the game implements `checkpoint()`, the
 * game's own state (a ticking game's world only while `RoomOptions.checkpointMs` is not 0). JSON-able; hosts store it as they like (the Cloudflare adapter in Durable
 * Object storage) and hand it back to `HostedRoom.restoreCheckpoint` before any socket is
 * seated.
 */
export interface RoomCheckpoint {
  /** Format version. */
  v: 1;
  /** The room's kind and id: a checkpoint is restored only into the same room. */
  kind: string;
  /** See {@link kind}. */
  roomId: string;
  /** Wall-clock ms when it was taken (for operators; the room does not read it). */
  savedAt: number;
  /** Every seat, connected or held, when it was taken. */
  seats: CheckpointSeat[];
  /** The game's `checkpoint()`, absent when the game has none (or its world is not checkpointed). */
  game?: unknown;
  /** How a matchmaker lists the room (its metadata, visibility and lock), so a restart keeps them. */
  listing?: SavedListing;
  /**
   * The players {@link game} holds, when they are not exactly {@link seats}: a host that keeps
   * each seat on its own (room/keptRoom.ts) restores seats taken after the game's state was
   * taken (each gets a fresh entity, `join`) and drops players freed since (`leave`).
   */
  gameSeats?: number[];
  /**
   * Seat records the host found but could not read (a host that keeps each seat on its own,
   * room/keptRoom.ts): left out, the other seats restored; the room counts them in `tk:stats`
   * (`errors.seat_record_refused`).
   */
  refusedSeats?: number;
  /**
   * Set when {@link game}'s world is a piece of the chain the host keeps it as (see
   * `HostedRoom.checkpoint`'s `world`): its index, 0 for a base.
   */
  worldPiece?: number;
  /**
   * The overrides the room was made with (roomMadeWith.ts), set by a host that keeps them: a
   * restored room is made with them again. Absent: none.
   */
  madeWith?: RoomMadeWith;
}

/**
 * How `HostedRoom.checkpoint` takes a game's `SyncWorld` (a game whose binary sync names
 * it; other state always goes whole): `whole`, every entity; `next`, the next piece of the chain
 * the room keeps it as (`WorldChain`: a base with every entity, then only what changed since the
 * piece before, a base again at the chain's limits), for a host that keeps every piece it is
 * given; `base`, a base now (a host that lost a piece starts the chain again).
 */
export type CheckpointWorld = "whole" | "next" | "base";

/** One seat in a {@link RoomCheckpoint}. */
export interface CheckpointSeat extends SeatTicket {
  /** Highest input seq applied: the reconnect's welcome tells the client (`lastSeq`). */
  lastSeq: number;
}

/** What the operator's view of a room holds besides its stats (see `HostedRoom.adminView`). */
export interface RoomAdminView {
  /** Every seat, connected or held, in player id order. */
  seats: AdminSeat[];
  /** The room's recent errors, oldest first. */
  errors: AdminRoomError[];
  /** Bans in force. */
  bans: AdminBan[];
}

/** Who a ban is for: a seated player (its identity is banned), or an identity. */
export type BanTarget =
  | {
      /** A seated player: the identity its seat is bound to (else its address) is banned. */
      playerId: number;
    }
  | {
      /** The identity itself (a ticket's player id, `jwt:<sub>`, an address). */
      identity: string;
    };

/** What a ban did: the identity and its end, and the sockets it closed; or why there was nothing to ban. */
export type BanOutcome =
  | {
      /** The banned identity. */
      identity: string;
      /** When the ban ends (room clock, epoch ms in production). */
      until: number;
      /** Sockets closed with `banned`. */
      closed: number;
    }
  | "no_such_player"
  | "anonymous";

/** Why a socket or a join was refused by the room's per-identity admission (`HostedRoom.admitSocket`). */
export interface AdmissionRefusal {
  /** HTTP status a host answers before the upgrade: 503 (room backlog; a relay whose link is down), 429 (this caller), 403 (banned). */
  status: 403 | 429 | 503;
  /** The `tk:stats` counter under `refused.*`. */
  counter: "socket_backlog" | "identity_backlog" | "identity_join_throttled" | "cooldown" | "banned" | "relinking";
  /** The close an upgrade gets instead: `join_throttled` (retry after the wait), or `banned`. */
  closeCode: number;
  /** A short human-readable reason for the response body. */
  reason: string;
  /** How long the caller should wait (the host sends it as `Retry-After`, in seconds). */
  retryAfterMs: number;
}
