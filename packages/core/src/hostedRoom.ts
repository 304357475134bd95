/**
 * The room as its host sees it, cut by who asks: its sockets ({@link SocketRoom}, which a
 * relayed room's relay shows too, so a host keeps one socket table for both), what survives a
 * restart ({@link KeepableRoom}), what its matchmaker lists it by ({@link ListedRoom}), and its
 * operator's side ({@link OperatedRoom}). {@link HostedRoom} is all of them, as `createRoom`
 * makes it; a host's part asks for the narrow view it uses. Shapes only: nothing here knows the
 * room's insides.
 */
import type { AdminBan, SpectateRequest } from "@tikron/protocol";
import type { AdmissionRefusal, BanOutcome, BanTarget, CheckpointWorld, Connection, RoomAdminView, RoomCheckpoint, SeatTicket } from "./host";
import type { GameStoreSnapshot } from "./gameStore";
import type { PendingReservation, SeatAnswer, SeatHold, SeatRequest } from "./match/roomPort";
import type { RoomStatus } from "./match/roomStatus";
import type { PlayerClaims } from "./player";
import type { RoomOptions } from "./roomOptions";
import type { RoomStatsSnapshot } from "./roomStats";

/**
 * What a host's socket table calls, the same for a single room and for a relay of a relayed
 * room (relay/relayRoom.ts): a socket's life is {@link admitSocket} (before the upgrade) →
 * {@link open} → {@link message} for each message → {@link closed}; none of them throws for
 * anything a client sends.
 */
export interface SocketRoom {
  /**
   * Whether a host may accept one more socket, asked before the upgrade with the caller's
   * admission key (see {@link open}). Null means yes; otherwise the host answers the refusal's
   * HTTP status (503 when `maxPendingSockets` sockets in the room have not said hello, or a
   * relay's link is down; 429 when this caller has `maxPendingPerIdentity` waiting or is cooling
   * down after an abuse kick; 403 when banned), with `Retry-After` (`admissionReply` words it).
   * Counted under `refused.<counter>`.
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
  /** One message arrived on a socket. Never throws; bad input is answered and counted. */
  message(connId: number, data: Uint8Array | ArrayBuffer | string): void;
  /**
   * A socket closed (by the peer or the network). A host whose runtime refused a frame over its
   * own size limit reports code 1009: the room treats it as an oversized frame (counted as
   * `errors.frame_too_large`, the seat freed, the identity cooling down).
   */
  closed(connId: number, code: number, reason?: string): void;
}

/**
 * What a host that keeps rooms across restarts asks: the checkpoint, the game's store, the bans,
 * the sockets that outlived the runtime, and a promotion's hand-over to the room made in place.
 */
export interface KeepableRoom {
  /**
   * Every seat and the game's own checkpoint, JSON-able (see `RoomHooks.onCheckpointDue`);
   * `world` says how a game's world goes in (see {@link CheckpointWorld}; default whole).
   */
  checkpoint(world?: CheckpointWorld): RoomCheckpoint;
  /**
   * Rebuilds the room from a {@link checkpoint} before any socket is seated: every seat comes
   * back held for the reconnection window. Returns false (and changes nothing) for a value that
   * is not a checkpoint of this room, or when seats already exist.
   */
  restoreCheckpoint(value: unknown): boolean;
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
  /**
   * Re-attaches a socket that survived a runtime restart (e.g. Durable Object hibernation) to a
   * fresh room: the seat is rebuilt with the same id and token, and the client gets no welcome.
   */
  adopt(conn: Connection, ticket: SeatTicket): number;
  /** The ticket of a live, seated socket, for hosts that persist it across restarts. */
  seatTicket(connId: number): SeatTicket | null;
  /** The bans in force, for a host that keeps them across restarts. */
  activeBans(): AdminBan[];
  /** Puts back bans a host kept (those already over are dropped). */
  restoreBans(bans: readonly AdminBan[]): void;
  /** The seat reservations still pending (a room handing over passes them to the one in its place). */
  pendingReservations(): PendingReservation[];
  /**
   * Holds seats a room this one took the place of had reserved (its {@link pendingReservations}),
   * each for the time it had left: the matchmaker's players who were on their way still get in.
   */
  holdReservations(pending: readonly PendingReservation[]): void;
  /**
   * Stops the room for another one the host made from its {@link checkpoint} in its place (a
   * room promoted to a relayed room): every socket closes with `code` and the reason (a code the
   * SDK reconnects on at once, `going_away`), and then every timer stops. Unlike
   * `HostedRoom.dispose`, nothing ends: no seat is freed, no session record is written, the game
   * hears no `onDispose` (its world goes on in the other room). The room is dead afterwards.
   * Idempotent; no-op after `dispose`.
   */
  handOver(code: number, reason: string): void;
}

/** What a room's matchmaker asks of it (core/match): its status, and seats held or given back. */
export interface ListedRoom {
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
}

/** What the operator asks of a room (the admin API, `tk:stats`, bots). */
export interface OperatedRoom {
  /** The `tk:stats` snapshot. */
  snapshot(): RoomStatsSnapshot;
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
   * sockets close with `banned` (4023), its seat is freed, and `admitSocket` and the hello
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
  /**
   * Adds or removes bot players until `n` are seated (clamped to 0..MAX_BOTS; bots take seats
   * like anyone, so a full room seats fewer). Returns the bots seated. No-op for kinds without
   * bots.
   */
  setBots(n: number): number;
  /** Bot players seated now. */
  readonly botCount: number;
  /** Whether this room's kind has bots, and whether production gateways may add them. */
  readonly botsAvailable: {
    /** The kind's definition has bots. */
    available: boolean;
    /** Its `bots.allowInProduction` is set. */
    inProduction: boolean;
  };
}

/**
 * The room as its host holds it: what it is and how many are in it, its life's end, and every
 * view above. A host's parts take the view they use (a socket table a {@link SocketRoom}, the
 * keeping a {@link KeepableRoom}, the reporter a {@link ListedRoom}, the admin side an
 * {@link OperatedRoom}).
 */
export interface HostedRoom extends SocketRoom, KeepableRoom, ListedRoom, OperatedRoom {
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
  /** Resolves once the game's deferred work (`ctx.defer`) has settled, work started meanwhile included. */
  deferredIdle(): Promise<void>;
  /**
   * Stops timers, closes every socket and tells the game (`onDispose`: `empty` when no seat is
   * taken, else `shutdown`). Hosts call it when they let an empty room go or shut down; the
   * game may still defer work and change its store then. Idempotent.
   */
  dispose(code?: number, reason?: string): void;
}
