/**
 * {@link SpectatorHub}: the spectators of one object (a room's own, or a relay's), fed by the
 * room's world stream. One interface whichever object holds them: the host opens a spectator
 * socket with {@link SpectatorHub.open} and hands it its messages and its close; the object
 * hands the hub each flush of the world stream ({@link SpectatorHub.stream}).
 */
import {
  CloseCode,
  DecodeError,
  ErrorCode,
  FOLLOW_MESSAGE,
  FrameWriter,
  PROTOCOL_VERSION,
  type Schema,
  type SpectateRequest,
  type SpectateTarget,
  decodeClientMessage,
  encodeError,
  encodePong,
  encodeReply,
  encodeReplyError,
  encodeWelcome,
  readTarget,
} from "@tikron/protocol";
import type { SpectatorSocket } from "./spectatorSocket";
import type { Clock, TimerHandle } from "../clock";
import type { RoomOptions } from "../roomOptions";
import { RoomStats } from "../roomStats";
import type { SyncWorldOptions } from "../sync/quantizedStore";
import { TokenBucket } from "../tokenBucket";
import { SpectatorLane } from "./spectatorLane";
import type { LaneMember, TargetGroup } from "./targetGroup";
import { type SpectatorStats, newSpectatorCounters } from "./spectatorStats";

/**
 * Connection ids of spectators start here, above any a room's own sockets reach, so a host's
 * one `message(connId)` entry tells them apart with one comparison.
 */
export const SPECTATOR_ID_BASE = 0x40000000;

/** What a hub needs from the object that holds it. */
export interface SpectatorHubInit {
  readonly kind: string;
  /** The room's schema and world options (its mirrors' layout). */
  readonly schema: Schema;
  readonly world: SyncWorldOptions;
  /** The room's options: `maxSpectators`, `spectateMinDelaySec`, budgets, cadence, cap. */
  readonly options: RoomOptions;
  /** The room's counters (`refused.spectators_full`, `errors.spectating` are bumped there too). */
  readonly stats: RoomStats;
  /** The object's clock: a spectator's wait for its hello is timed on it. */
  readonly clock: Clock;
  /**
   * Wall clock ms of room time 0 (the welcome's `roomEpoch`); null where the object does not
   * know it (a relay): learned from the stream's first flush (its arrival less its time).
   */
  readonly epoch: number | null;
  /** The syncing interval the room flushes at (the welcome's). */
  readonly syncIntervalMs: () => number;
  /** The world stream must carry a snapshot soon (a mirror has none, or lost its place). */
  readonly wantSnapshot: () => void;
}

/** One spectator socket. */
class Spectator implements LaneMember {
  group: TargetGroup | null = null;
  fresh = true;
  welcomed = false;
  errors = 0;
  closed = false;
  /** Closes the socket if no hello came within `helloTimeoutMs`; null once it said hello or closed. */
  helloTimer: TimerHandle | null = null;

  constructor(
    readonly id: number,
    readonly conn: SpectatorSocket,
    public target: SpectateTarget | null,
    readonly lane: SpectatorLane,
    readonly budget: TokenBucket,
    private readonly hub: SpectatorHub,
    private readonly maxBuffered: number,
  ) {}

  send(data: Uint8Array): void {
    this.conn.send(data);
  }

  behind(): boolean {
    return !this.welcomed || this.conn.bufferedAmount() > this.maxBuffered;
  }

  rewelcome(): void {
    this.hub.welcome(this);
  }
}

/** The spectators of one object (see the file's comment). */
export class SpectatorHub {
  private readonly lanes = new Map<number, SpectatorLane>();
  private readonly spectators = new Map<number, Spectator>();
  private readonly counters = newSpectatorCounters();
  private readonly writer = new FrameWriter(1 << 12);
  private readonly small = new FrameWriter(256);
  private nextId = SPECTATOR_ID_BASE;
  private learnedEpoch: number | null = null;

  constructor(private readonly init: SpectatorHubInit) {}

  /** Spectators connected. */
  get size(): number {
    return this.spectators.size;
  }

  /** Whether `connId` is a spectator's (see {@link SPECTATOR_ID_BASE}). */
  static owns(connId: number): boolean {
    return connId >= SPECTATOR_ID_BASE;
  }

  /**
   * A spectator socket opened: returns its id, or -1 when it was refused and closed
   * (`spectators_full` at the cap, `bad_request` for a room without spectators).
   */
  open(conn: SpectatorSocket, req: SpectateRequest, now: number): number {
    const { options, stats } = this.init;
    if (this.spectators.size >= options.maxSpectators) {
      this.counters.refusedFull++;
      RoomStats.bump(stats.refused, "spectators_full");
      conn.close(CloseCode.spectators_full, options.maxSpectators === 0 ? "this room takes no spectators" : `the room holds its ${options.maxSpectators} spectators`);
      return -1;
    }
    const delayMs = Math.max(req.delaySec, options.spectateMinDelaySec) * 1000;
    let lane = this.lanes.get(delayMs);
    if (!lane) {
      lane = new SpectatorLane({
        schema: this.init.schema,
        world: this.init.world,
        delayMs,
        idleFrameMs: options.idleFrameMs,
        counters: this.counters,
        syncIntervalMs: this.init.syncIntervalMs,
        wantSnapshot: this.init.wantSnapshot,
      });
      this.lanes.set(delayMs, lane);
    }
    const id = this.nextId++;
    const s = new Spectator(id, conn, req.target, lane, new TokenBucket(options.msgRatePerSec, options.msgBurst, now), this, options.maxBufferedBytes);
    this.spectators.set(id, s);
    lane.add(s);
    // Like a player's socket: one that never says hello would hold a place of the cap for as
    // long as its socket stays open.
    s.helloTimer = this.init.clock.setTimer(() => {
      s.helloTimer = null;
      if (s.welcomed || s.closed) return;
      this.counters.helloTimeouts++;
      this.close(s, CloseCode.hello_timeout, "no hello in time");
    }, options.helloTimeoutMs);
    return id;
  }

  /** One message from spectator `connId`. Never throws: what a spectator may not send is refused and counted. */
  message(connId: number, data: Uint8Array | ArrayBuffer | string, now: number): void {
    const s = this.spectators.get(connId);
    if (!s || s.closed) return;
    if (!s.budget.take(now)) return this.close(s, CloseCode.rate_limited, "message rate over budget");
    if (typeof data === "string") return this.close(s, CloseCode.bad_hello, "spectators speak the binary dialect");
    const m = decodeClientMessage(data instanceof Uint8Array ? data : new Uint8Array(data));
    if (m instanceof DecodeError) {
      if (m.code === "too_large") return this.close(s, CloseCode.frame_too_large, m.message);
      return this.refuse(s, ErrorCode.bad_frame, m.message, 0);
    }
    switch (m.kind) {
      case "hello":
        if (s.welcomed) return this.refuse(s, ErrorCode.already_joined, "second hello", 0);
        if (m.version !== PROTOCOL_VERSION) return this.close(s, CloseCode.bad_hello, `protocol version ${m.version}`);
        s.welcomed = true;
        this.stopHelloTimer(s);
        return this.welcome(s);
      case "ping":
        s.conn.send(encodePong(this.small.reset(), m.clientTime, Date.now()).peek());
        return;
      case "receipt":
        return;
      case "leave":
        return this.close(s, CloseCode.normal, "left");
      case "message":
        if (m.type === FOLLOW_MESSAGE) return this.follow(s, m.requestId, m.payload);
        return this.refuse(s, ErrorCode.spectating, `a spectator sends no ${m.type}`, m.requestId);
      default:
        // Inputs and stats requests: a spectator has no seat.
        return this.refuse(s, ErrorCode.spectating, `a spectator sends no ${m.kind}`, 0);
    }
  }

  /** Spectator `connId`'s socket closed. */
  closed(connId: number): void {
    const s = this.spectators.get(connId);
    if (!s) return;
    s.closed = true;
    this.stopHelloTimer(s);
    this.spectators.delete(connId);
    s.lane.remove(s);
    if (s.lane.size === 0) this.lanes.delete(s.lane.delayMs);
  }

  /**
   * One flush of the room's world stream: its tick and time, the feed's update and the snapshot
   * written right after it (or null). The bytes are copied once (a lane replays them later).
   */
  stream(tick: number, time: number, update: Uint8Array, snapshot: Uint8Array | null, now: number): void {
    this.learnedEpoch ??= Date.now() - time;
    if (this.lanes.size === 0) return;
    const entry = { at: now, tick, time, update: update.slice(), snapshot: snapshot ? snapshot.slice() : null };
    for (const lane of this.lanes.values()) lane.push(entry, now, this.writer);
  }

  /** Closes every spectator socket (the room stops). */
  closeAll(code: number, reason: string): void {
    for (const s of [...this.spectators.values()]) this.close(s, code, reason);
  }

  /** The `spectators` section of `tk:stats`. */
  stats(): SpectatorStats {
    let groups = 0;
    for (const lane of this.lanes.values()) groups += lane.groupCount;
    return { ...this.counters, connected: this.spectators.size, lanes: this.lanes.size, groups };
  }

  /** @internal Sends `s` a welcome: no seat (player 0, no token), the room's cadence and clock. */
  welcome(s: Spectator): void {
    const { options, kind } = this.init;
    const epoch = this.init.epoch ?? this.learnedEpoch ?? Date.now();
    const w = encodeWelcome(this.small.reset(), {
      version: PROTOCOL_VERSION,
      playerId: 0,
      token: "",
      tickMs: options.tickMs,
      syncIntervalMs: this.init.syncIntervalMs(),
      serverTime: Date.now(),
      roomEpoch: epoch,
      reconnected: false,
      json: false,
      roomKind: kind,
      cap: options.cap,
      schemaHash: this.init.schema.hash,
      lastSeq: 0,
    });
    s.conn.send(w.peek());
  }

  private stopHelloTimer(s: Spectator): void {
    if (s.helloTimer === null) return;
    this.init.clock.clearTimer(s.helloTimer);
    s.helloTimer = null;
  }

  private follow(s: Spectator, requestId: number, payload: string): void {
    let target: SpectateTarget | null = null;
    try {
      target = readTarget(JSON.parse(payload));
    } catch {
      target = null;
    }
    if (target === null) return this.refuse(s, ErrorCode.spectating, 'tk:follow takes { "player": id } or { "x": n, "y": n }', requestId);
    s.lane.switchTarget(s, target);
    if (requestId !== 0) s.conn.send(encodeReply(this.small.reset(), requestId, "{}").peek());
  }

  private refuse(s: Spectator, code: number, reason: string, requestId: number): void {
    this.counters.refused++;
    RoomStats.bump(this.init.stats.errors, "spectating");
    if (requestId !== 0) s.conn.send(encodeReplyError(this.small.reset(), requestId, code, reason).peek());
    else s.conn.send(encodeError(this.small.reset(), code, reason).peek());
    if (++s.errors > this.init.options.maxErrorsPerConnection) this.close(s, CloseCode.too_many_errors, "too many refused messages");
  }

  private close(s: Spectator, code: number, reason: string): void {
    if (s.closed) return;
    s.conn.close(code, reason);
    this.closed(s.id);
  }
}
