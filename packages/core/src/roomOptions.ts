/** Tunables of one room. Games pick defaults; DEV_MODE lets the load tool override them. */
export interface RoomOptions {
  /** Simulation tick length in ms (20 Hz = 50). */
  tickMs: number;
  /** Minimum ms between two state frames to one client; flushes align to tick boundaries. */
  syncIntervalMs: number;
  /** Seats; the (cap+1)-th join is refused with `room_full` / close 4002. */
  cap: number;
  /** How long a dropped player's seat and entity are held for a reconnect (ms). */
  reconnectWindowMs: number;
  /** Queue inputs until the next tick (true) or process and ack each at once (false). */
  queueInputs: boolean;
  /** A socket must say hello within this many ms or it is closed (4006). */
  helloTimeoutMs: number;
  /** Per-connection message budget: sustained messages/s and burst size (token bucket). */
  msgRatePerSec: number;
  /** Burst size of the per-connection message budget. */
  msgBurst: number;
  /** Joins admitted per second per room (token bucket) and burst; excess get `join_throttled`. */
  joinRatePerSec: number;
  /** Burst size of the room's join admission. */
  joinBurst: number;
  /** Close a client whose unsent backlog exceeds this many bytes (4004). */
  maxBufferedBytes: number;
  /** Protocol errors tolerated from one connection before it is closed (4010). */
  maxErrorsPerConnection: number;
  /** Least ms between two `tk:stats` answers to one connection (the probe is not free). */
  minStatsIntervalMs: number;
}

/** Defaults shared by every room kind unless a game overrides them. */
export const defaultRoomOptions: RoomOptions = {
  tickMs: 50,
  syncIntervalMs: 50,
  cap: 20,
  reconnectWindowMs: 15_000,
  queueInputs: true,
  helloTimeoutMs: 10_000,
  msgRatePerSec: 60,
  msgBurst: 120,
  joinRatePerSec: 20,
  joinBurst: 40,
  maxBufferedBytes: 1 << 20,
  maxErrorsPerConnection: 20,
  minStatsIntervalMs: 250,
};
