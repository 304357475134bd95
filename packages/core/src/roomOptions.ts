import type { RoomOptionOverrides } from "@tikron/protocol";

/** Tunables of one room. Games pick defaults; DEV_MODE lets the load tool override them. */
export interface RoomOptions {
  /** Simulation tick length in ms (20 Hz = 50). */
  tickMs: number;
  /**
   * Minimum ms between two state frames to one client. Flushes sit on tick boundaries, so the
   * room flushes every `flushEveryTicks(syncIntervalMs, tickMs)` ticks (rounded up: never
   * faster than this) and announces that effective interval in its welcome.
   */
  syncIntervalMs: number;
  /** Seats; the (cap+1)-th join is refused with `room_full` / close 4002. */
  cap: number;
  /** How long a dropped player's seat and entity are held for a reconnect (ms). */
  reconnectWindowMs: number;
  /** Queue inputs until the next tick (true) or process and ack each at once (false). */
  queueInputs: boolean;
  /** A socket must say hello within this many ms or it is closed (4006). */
  helloTimeoutMs: number;
  /**
   * How long the game's `admit` may take to answer a joining player (ms): past it the join is
   * refused `admission_failed` (close `join_throttled`, retried after a second) and counted in
   * `refused.admission_timeout`; its seat was counted against the cap meanwhile.
   */
  admissionTimeoutMs: number;
  /** Per-connection message budget: sustained messages/s (token bucket). */
  msgRatePerSec: number;
  /** Burst size of the per-connection message budget. */
  msgBurst: number;
  /** Joins admitted per second per room (token bucket); excess get `join_throttled`. */
  joinRatePerSec: number;
  /** Burst size of the room's join admission. */
  joinBurst: number;
  /**
   * Sockets still waiting to say hello beyond which a host refuses new upgrades (HTTP 503,
   * `refused.socket_backlog`): each costs memory and a timer until its hello timeout, and join
   * admission only sees sockets once they say hello. See `Room.admitSocket`.
   */
  maxPendingSockets: number;
  /**
   * Backlog per client at which it is closed (4004) at once: bytes sent and not yet confirmed
   * by the client's receipts, or reported unsent by the runtime (`bufferedAmount`).
   */
  maxBufferedBytes: number;
  /**
   * Unconfirmed backlog (bytes) above which a client is "behind": it gets no state frames and no
   * optional replies until its receipts catch up (its next frame then carries everything since
   * the last one it got); behind for longer than `slowConsumerGraceMs` closes it (4004).
   */
  softBufferedBytes: number;
  /** Unconfirmed server messages above which a client is behind, whatever their size. */
  maxUnreceiptedMessages: number;
  /** How long a client may stay behind before it is closed (4004). */
  slowConsumerGraceMs: number;
  /** Sockets one identity (ticket player id or remote address) may have waiting for hello. */
  maxPendingPerIdentity: number;
  /** New seats per second one identity may take (checked before the room's join bucket). */
  identityJoinRatePerSec: number;
  /** New seats one identity may take at once. */
  identityJoinBurst: number;
  /** After an abuse kick (4003, 4007, 4010) the identity's sockets and joins are refused this long. */
  abuseCooldownMs: number;
  /** Frames with refused inputs one socket may send per second (sustained); beyond → 4010. */
  rejectedFramesPerSec: number;
  /** Frames with refused inputs one socket may send in a burst before the rate applies. */
  rejectedFramesBurst: number;
  /** Largest step of an input seq above the seat's last one; a bigger jump is refused. */
  maxSeqStep: number;
  /** Protocol errors tolerated from one connection before it is closed (4010). */
  maxErrorsPerConnection: number;
  /** Least ms between two `tk:stats` answers to one connection (the probe is not free). */
  minStatsIntervalMs: number;
  /**
   * Game messages (chat, ready, votes: the protocol's MESSAGE kind) one socket may send per second, sustained (a
   * token bucket of its own, inside the message budget); beyond it they are refused
   * `rate_limited` with a retry hint, and each refusal costs the refusal budget.
   */
  gameMessageRatePerSec: number;
  /** Game messages one socket may send at once before the rate applies. */
  gameMessageBurst: number;
  /**
   * A client that got no frame for this long gets an empty FRAME (header only, ~7 bytes) at the
   * next flush, so an idle room still tells it that time advanced; 0 turns it off. Binary rooms.
   */
  idleFrameMs: number;
  /**
   * Connected clients a flush encodes and sends in one task; a bigger flush goes on in further
   * slices, each a task of its own (the host's `Clock.nextTask`), so socket events and timers run
   * between them (room/slicedFlush.ts). A count, not a time budget: deployed Workers' clocks do
   * not advance within a task. 0 sends every flush in one task.
   */
  flushSliceClients: number;
  /**
   * Spectators one object of the room holds at most (its own sockets, apart from the seat cap;
   * core/src/spectate): one more is refused with `spectators_full` (4025). 0: no spectators.
   */
  maxSpectators: number;
  /**
   * The least delay a spectator watches with, in seconds (one asking for less gets this), so
   * watching cannot be used to see the live match; a competitive kind sets it.
   */
  spectateMinDelaySec: number;
  /** Bot players seated when the room is created (games that define bots; DEV_MODE `bots=N`). */
  bots: number;
  /**
   * How often a ticking room checkpoints itself while anyone is connected (ms, rounded up to
   * whole flushes; the checkpoint is taken right after one): its seats' last seqs and, when the
   * game implements `checkpoint()`, its world, so a restart loses at most this much of the
   * match. Default 1 s: a host that keeps a world as a chain writes only what changed since the
   * last one, off the tick and without holding frames (room/keptRoom.ts). 0 turns the periodic
   * checkpoint off and leaves a ticking game's world out of every checkpoint (seats are still
   * kept, each on its own; restored players then get a fresh entity). Turn-based rooms
   * checkpoint on every change whatever this says.
   */
  checkpointMs: number;
  /**
   * How soon after the last periodic checkpoint the next one comes once the game marks a change
   * a player would lose (`GameContext.keepSoon`: agar's scores, fps's kills), ms: what a restart
   * takes of such a change is at most about this long. Default 200 (issue 32's restart drill: ≥ 95
   * of 100 agar players keep their score, which takes ≤ ~0.3 s; PERFORMANCE.md); a room where
   * such changes never stop writes a checkpoint this often. 0: `keepSoon` brings nothing forward
   * (checkpoints every `checkpointMs` only; DEV_MODE `keepSoonMs=0`, to measure what it costs).
   */
  keepSoonMs: number;
  /**
   * Relays holding the room's sockets (DEV_MODE `relays=K`): 0, the room's own object holds
   * them; K ≥ 1, its object runs the simulation and K relay objects hold the sockets and encode
   * the frames (relay/, AGENTS.md "Relays"). Only games whose binary sync names its `world`.
   */
  relays: number;
  /**
   * Seats at which a room with `relays` ≥ 1 becomes relayed (DEV_MODE `relayAt=N`; a deployment's
   * `ROOM_RELAYS="kind=K@N"`): below it the room's own object holds its sockets (no hop); the
   * seat that brings it to N promotes it, once (AGENTS.md "Relays"). 0: relayed from its start.
   */
  relayAt: number;
}

/** Defaults shared by every room kind unless a game overrides them. */
export const defaultRoomOptions: RoomOptions = {
  tickMs: 50,
  syncIntervalMs: 50,
  cap: 20,
  reconnectWindowMs: 15_000,
  queueInputs: true,
  helloTimeoutMs: 3_000,
  admissionTimeoutMs: 5_000,
  msgRatePerSec: 60,
  msgBurst: 120,
  joinRatePerSec: 20,
  joinBurst: 40,
  maxPendingSockets: 256,
  maxBufferedBytes: 1 << 20,
  softBufferedBytes: 256 * 1024,
  maxUnreceiptedMessages: 200,
  slowConsumerGraceMs: 5_000,
  maxPendingPerIdentity: 8,
  identityJoinRatePerSec: 2,
  identityJoinBurst: 6,
  abuseCooldownMs: 10_000,
  rejectedFramesPerSec: 5,
  rejectedFramesBurst: 40,
  maxSeqStep: 1 << 16,
  maxErrorsPerConnection: 20,
  minStatsIntervalMs: 250,
  gameMessageRatePerSec: 5,
  gameMessageBurst: 10,
  idleFrameMs: 250,
  flushSliceClients: 64,
  maxSpectators: 2_000,
  spectateMinDelaySec: 0,
  bots: 0,
  checkpointMs: 1_000,
  keepSoonMs: 200,
  relays: 0,
  relayAt: 0,
};

/**
 * The one merge of room options: {@link defaultRoomOptions}, then each layer in order (a game
 * definition's defaults, then a join's DEV_MODE overrides). Hosts call it once and hand the
 * same object to the game and the room.
 */
export function resolveRoomOptions(...layers: (Partial<RoomOptions> | undefined)[]): RoomOptions {
  const options: RoomOptions = { ...defaultRoomOptions };
  for (const layer of layers) if (layer) Object.assign(options, layer);
  return options;
}

// Compile-time check: every key a join URL may override (the protocol's list) is a room option
// of the same type, so the overrides can be layered over options without a cast.
type Fits<T extends U, U> = T;
type OverridesFitRoomOptions = Fits<RoomOptionOverrides, Partial<RoomOptions>>;
