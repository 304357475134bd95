/**
 * What a host (a runtime adapter: the Cloudflare Durable Object, the Node server) and its rooms
 * say to each other, in one place. The host implements {@link Connection} for each socket and,
 * if it wants to hear of a room's life, {@link RoomHooks}; it makes rooms with `createRoom` and
 * talks to one only through {@link HostedRoom}. Everything else in the core is the room's own.
 */
import type { ListingInit, RoomStatus, SavedListing } from "./match/roomStatus";
import type { PendingReservation, SeatAnswer, SeatHold, SeatRequest } from "./match/roomPort";
import type { BusyMeter } from "./busyMeter";
import type { Clock } from "./clock";
import type { Game } from "./game";
import type { GameStoreSnapshot } from "./gameStore";
import type { BotSpec } from "./gameDefinition";
import type { AdminBan, AdminRoomError, AdminSeat, JoinOptionsDecl, SpectateRequest } from "@tikron/protocol";
import type { PlayerClaims, SeatPlayer } from "./player";
import type { RoomOptions } from "./roomOptions";
import type { RoomStatsSnapshot } from "./roomStats";
import type { MatchRecorder } from "./replay/matchRecorder";

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
   * What a matchmaker knows the room by changed ({@link HostedRoom.status}): seats taken, held or
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
   * called right after the tick it falls on, so a host that takes {@link HostedRoom.checkpoint}
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
  /** Verified external player id the seat is bound to (see {@link HostedRoom.open}). */
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
 * Object storage) and hand it back to {@link HostedRoom.restoreCheckpoint} before any socket is
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
}

/**
 * How {@link HostedRoom.checkpoint} takes a game's `SyncWorld` (a game whose binary sync names
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

/** What a room is made of; hosts usually go through `createRoom` (roomFactory.ts). */
export interface RoomInit {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** The game this room runs. */
  game: Game;
  /** Layered over the defaults by `resolveRoomOptions`. */
  options?: Partial<RoomOptions>;
  /** Clock the room runs on (default: the system clock; tests pass a `FakeClock`). */
  clock?: Clock;
  /**
   * The host's meter of the object's own time (busyMeter.ts): the room counts its timers on it
   * and reports it in `tk:stats` (`busy`). Absent: no `busy` figure.
   */
  busy?: BusyMeter;
  /** Observers of the room's life (records, restarts, the lobby). */
  hooks?: RoomHooks;
  /** The kind's bot players (from its `GameDefinition`). */
  bots?: BotSpec;
  /** The join options the kind's players may choose (its `GameDefinition.joinOptions`); absent: none. */
  joinOptions?: JoinOptionsDecl;
  /** How a matchmaker lists the room: initial metadata, visibility, creation overrides. */
  listing?: ListingInit;
  /** The host's environment, handed to the game as `ctx.env` (see `GameContext.env`). */
  env?: unknown;
  /**
   * The game's store as the host kept it ({@link HostedRoom.storeSnapshot}); a value that is not
   * one is refused (`errors.store_refused`, an empty store).
   */
  store?: unknown;
  /**
   * The recorder of the room's match (`createRoom` makes one when the host asks for recording
   * and the kind's definition records: `@tikron/core/replay`); absent: not recorded.
   */
  recorder?: MatchRecorder;
}

/** Why a socket or a join was refused by the room's per-identity admission ({@link HostedRoom.admitSocket}). */
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

/**
 * The room as its host sees it: every call a host makes. A socket's life is
 * {@link admitSocket} (before the upgrade) → {@link open} (or {@link adopt} after a restart) →
 * {@link message} for each message → {@link closed}; none of them throws for anything a client
 * sends.
 */
export interface HostedRoom {
  /** Room kind, e.g. `agar`. */
  readonly kind: string;
  /** Room id within its kind. */
  readonly roomId: string;
  /** The resolved options the room runs with. */
  readonly options: RoomOptions;
  /**
   * Whether the game runs a tick loop. Hosts pick their socket API by it: a ticking room is
   * awake while anyone is connected, a turn-based one can sleep between moves.
   */
  readonly ticking: boolean;
  /** Connected clients (seated, with a live socket, bots included); `ccu` in `tk:stats`. */
  readonly connectedCount: number;
  /** Seats taken, connected or held for a reconnect. */
  readonly seatCount: number;
  /** Bot players seated now. */
  readonly botCount: number;
  /** Whether this room's kind has bots, and whether production gateways may add them. */
  readonly botsAvailable: {
    /** The kind's definition has bots. */
    available: boolean;
    /** Its `bots.allowInProduction` is set. */
    inProduction: boolean;
  };
  /**
   * Whether a host may accept one more socket, asked before the upgrade with the caller's
   * admission key (see {@link open}). Null means yes; otherwise the host answers the refusal's
   * HTTP status (503 when `maxPendingSockets` sockets in the room have not said hello; 429 when
   * this caller has `maxPendingPerIdentity` waiting or is cooling down after an abuse kick),
   * with `Retry-After` (`admissionReply` words it). Counted under `refused.<counter>`.
   */
  admitSocket(identity?: string, address?: string): AdmissionRefusal | null;
  /**
   * A socket opened. Returns the id the host passes to {@link message} and {@link closed}.
   * `identity` is a player id the host has verified (e.g. from a signed join ticket): such a
   * socket always gets that player's seat back, whatever token its hello carries, and one
   * identity never holds two seats, so one ticket cannot fill a room. `address` is the peer's
   * address when the host knows one worth limiting by; admission limits per caller use the
   * identity, else the address (see room/admission.ts). `reservation` is the seat reservation
   * the join names (from a matchmaker, via a verified reservation token whose identity is
   * `identity`): the hello takes the seat held for it. `claims` are the sign-in claims verified
   * with `identity` (a JWT's, as the deployment names them: `pickClaims`), handed to the game in
   * the seat's `Player` record; a join by reservation gets those the reservation was made with.
   */
  open(conn: Connection, identity?: string, address?: string, reservation?: string, claims?: PlayerClaims): number;
  /**
   * A spectator socket opened (a join URL with `spectate=1`: protocol `readSpectate`): no seat,
   * apart from the cap, no inputs (core/src/spectate). Returns the id for {@link message} and
   * {@link closed}, or -1 when the room refused it and closed it (`spectators_full`; `bad_request`
   * for a room that cannot be watched). Absent: the room takes no spectators.
   */
  spectate?(conn: Connection, request: SpectateRequest): number;
  /**
   * Re-attaches a socket that survived a runtime restart (e.g. Durable Object hibernation) to a
   * fresh room: the seat is rebuilt with the same id and token, and the client gets no welcome.
   */
  adopt(conn: Connection, ticket: SeatTicket): number;
  /** One message arrived on a socket. Never throws; bad input is answered and counted. */
  message(connId: number, data: Uint8Array | ArrayBuffer | string): void;
  /**
   * A socket closed (by the peer or the network). A host whose runtime refused a frame over its
   * own size limit reports code 1009: the room treats it as an oversized frame (counted as
   * `errors.frame_too_large`, the seat freed, the identity cooling down).
   */
  closed(connId: number, code: number, reason?: string): void;
  /** The `tk:stats` snapshot. */
  snapshot(): RoomStatsSnapshot;
  /** The ticket of a live, seated socket, for hosts that persist it across restarts. */
  seatTicket(connId: number): SeatTicket | null;
  /**
   * Every seat and the game's own checkpoint, JSON-able (see {@link RoomHooks.onCheckpointDue});
   * `world` says how a game's world goes in (see {@link CheckpointWorld}; default whole).
   */
  checkpoint(world?: CheckpointWorld): RoomCheckpoint;
  /**
   * Moves on every change of the game's store (`ctx.store`); a change also asks for a
   * checkpoint. A host that keeps the store saves {@link storeSnapshot} with its next
   * checkpoint write when this moved since the last one it saved.
   */
  readonly storeVersion: number;
  /**
   * The game's store as a host keeps it (JSON-able; null when empty: delete what was kept). It
   * outlives the checkpoint: kept when the room empties, handed back to `createRoom` as `store`.
   */
  storeSnapshot(): GameStoreSnapshot | null;
  /** Resolves once the game's deferred work (`ctx.defer`) has settled, work started meanwhile included. */
  deferredIdle(): Promise<void>;
  /**
   * Rebuilds the room from a {@link checkpoint} before any socket is seated: every seat comes
   * back held for the reconnection window. Returns false (and changes nothing) for a value that
   * is not a checkpoint of this room, or when seats already exist.
   */
  restoreCheckpoint(value: unknown): boolean;
  /**
   * Adds or removes bot players until `n` are seated (clamped to 0..MAX_BOTS; bots take seats
   * like anyone, so a full room seats fewer). Returns the bots seated. No-op for kinds without
   * bots.
   */
  setBots(n: number): number;
  /** What the room's matchmaker knows it by (see core/match `RoomStatus`). */
  status(): RoomStatus;
  /**
   * A matchmaker asks for seats, all or none (see core/match `SeatRequest`): each identity that
   * holds no seat here gets one held for `req.ttlMs`, counted against the cap. The room is the
   * authority: a locked room, a private one asked for by a public request, or one without room
   * for every seat refuses, whatever the matchmaker believed.
   */
  reserveSeats(req: SeatRequest): SeatAnswer;
  /**
   * A matchmaker gives seats back unused (a party member left before joining): each reservation
   * still pending for its identity is dropped and its seat is free again; used or expired ones
   * are left alone. Returns the room's status after.
   */
  releaseSeats(seats: readonly SeatHold[]): RoomStatus;
  /**
   * The operator's view (admin API): every seat with its identity and state, the room's recent
   * errors, the bans in force. The stats are {@link snapshot}'s.
   */
  adminView(): RoomAdminView;
  /**
   * Removes a player (admin API): its socket closes with `kicked` (4022) and the reason, its seat
   * is freed. Returns the sockets closed (0 for a held seat), or null when no seat has that id.
   */
  kick(playerId: number, reason?: string): number | null;
  /**
   * Bans an identity, or a seated player's, from the room for `durationMs` (admin API): its
   * sockets close with `banned` (4023), its seat is freed, and {@link admitSocket} and the hello
   * refuse it (`banned`, with the wait) until the ban ends; seat requests for it are refused as
   * if the room were locked, so a matchmaker places it elsewhere. A seat with no identity and no
   * address cannot be banned (`anonymous`).
   */
  ban(target: BanTarget, durationMs: number, reason?: string): BanOutcome;
  /** Lifts a ban (admin API); false when there was none. */
  unban(identity: string): boolean;
  /** Locks (no new players: neither matches nor joins) or unlocks the room (admin API), as the game's `ctx.lock()`. */
  setLocked(locked: boolean): void;
  /**
   * Closes the room (admin API): bots leave, every socket closes with `room_closed` (4008) and the
   * reason, every seat and reservation is dropped. The room stays, empty. Returns the sockets closed.
   */
  closeRoom(reason?: string): number;
  /** Sends every connected player a NOTICE (admin API); returns how many got it. */
  notice(text: string): number;
  /** The bans in force, for a host that keeps them across restarts. */
  activeBans(): AdminBan[];
  /** Puts back bans a host kept (those already over are dropped). */
  restoreBans(bans: readonly AdminBan[]): void;
  /**
   * Stops timers, closes every socket and tells the game (`onDispose`: `empty` when no seat is
   * taken, else `shutdown`). Hosts call it when they let an empty room go or shut down; the
   * game may still defer work and change its store then. Idempotent.
   */
  dispose(code?: number, reason?: string): void;
  /**
   * Stops the room for another one the host made from its {@link checkpoint} in its place (a
   * room promoted to a relayed room): every socket closes with `code` and the reason (a code the
   * SDK reconnects on at once, `going_away`), and then every timer stops. Unlike
   * {@link dispose}, nothing ends: no seat is freed, no session record is written, the game
   * hears no `onDispose` (its world goes on in the other room). The room is dead afterwards.
   * Idempotent; no-op after `dispose`.
   */
  handOver(code: number, reason: string): void;
  /** The seat reservations still pending (a room handing over passes them to the one in its place). */
  pendingReservations(): PendingReservation[];
  /**
   * Holds seats a room this one took the place of had reserved (its {@link pendingReservations}),
   * each for the time it had left: the matchmaker's players who were on their way still get in.
   */
  holdReservations(pending: readonly PendingReservation[]): void;
}
