/**
 * {@link RoomSpectators}: spectators held by a room's own object, fed by a world feed on the
 * room's own world (a single room has none until its first spectator).
 */
import { CloseCode, FrameWriter, type SpectateRequest } from "@tikron/protocol";
import type { SpectatorSocket } from "./spectatorSocket";
import type { Clock } from "../clock";
import type { RoomOptions } from "../roomOptions";
import type { RoomStats } from "../roomStats";
import { SyncWorld } from "../sync/syncWorld";
import { WorldFeed } from "../sync/worldFeed";
import { SpectatorHub } from "./spectatorHub";
import type { SpectatorStats } from "./spectatorStats";

/** What a room hands its spectators. */
export interface RoomSpectatorsInit {
  readonly kind: string;
  /** The game's binary sync world (`sync.world`), or anything else for a room that cannot be watched. */
  readonly world: unknown;
  readonly options: RoomOptions;
  readonly stats: RoomStats;
  readonly epoch: number;
  readonly syncIntervalMs: () => number;
  readonly clock: Clock;
}

/**
 * A room's spectators, in its own object: the Node host's rooms and a single (not relayed)
 * room on Durable Objects. A relayed room's spectators sit on its relays instead (the relay
 * hands its hub the stream it gets), so the simulation does not pay for them. Here the room
 * pays one feed update per flush (written only while someone watches), one mirror update per
 * delay, and one encode per watched target, whatever the number of spectators.
 */
export class RoomSpectators {
  private hub: SpectatorHub | null = null;
  private feed: WorldFeed | null = null;
  private readonly update = new FrameWriter(1 << 12);
  private readonly snapshot = new FrameWriter(1 << 12);
  private snapshotDue = false;
  private flushIndex = 0;

  constructor(private readonly init: RoomSpectatorsInit) {}

  /**
   * Opens spectator `conn`: its id, or -1 when it was refused and closed (a room whose game
   * names no sync world, or a relayed room's simulation, cannot be watched here: `bad_request`;
   * a room that stopped: `room_closed`; the cap: `spectators_full`).
   */
  open(conn: SpectatorSocket, req: SpectateRequest, now: number, disposed: boolean): number {
    const world = this.init.world;
    if (disposed) {
      conn.close(CloseCode.room_closed, "room closed");
      return -1;
    }
    if (!(world instanceof SyncWorld) || (this.feed === null && world.log !== null)) {
      conn.close(CloseCode.bad_request, `${this.init.kind} rooms cannot be watched here`);
      return -1;
    }
    if (this.hub === null) {
      const { kind, options, stats, epoch, syncIntervalMs, clock } = this.init;
      this.feed = new WorldFeed(world);
      this.snapshotDue = true;
      this.hub = new SpectatorHub({ kind, schema: world.schema, world: world.options, options, stats, epoch, syncIntervalMs, clock, wantSnapshot: () => (this.snapshotDue = true) });
    }
    return this.hub.open(conn, req, now);
  }

  /** A message from spectator `connId` (a room's own socket's id, or one gone: nothing). */
  message(connId: number, data: Uint8Array | ArrayBuffer | string, now: number): void {
    if (SpectatorHub.owns(connId)) this.hub?.message(connId, data, now);
  }

  /** Spectator `connId`'s socket closed; false when `connId` is not a spectator's (the room's own socket). */
  closed(connId: number): boolean {
    if (!SpectatorHub.owns(connId)) return false;
    this.hub?.closed(connId);
    return true;
  }

  /**
   * The room began a flush (its encoder's `beginFlush` quantized the world): the feed writes its
   * update now, before anything moves the world again, and the hub takes it.
   */
  flushed(tick: number, time: number, now: number): void {
    const feed = this.feed;
    if (feed === null || this.hub === null) return;
    feed.writeUpdate(this.update.reset(), ++this.flushIndex);
    let snapshot: Uint8Array | null = null;
    if (this.snapshotDue) {
      this.snapshotDue = false;
      feed.writeSnapshot(this.snapshot.reset());
      snapshot = this.snapshot.peek();
    }
    this.hub.stream(tick, time, this.update.peek(), snapshot, now);
  }

  /** Closes every spectator (the room stops). */
  closeAll(code: number, reason: string): void {
    this.hub?.closeAll(code, reason);
  }

  /** True once a spectator came (the world's feed runs at every flush from then on: the room does not sleep). */
  get active(): boolean {
    return this.hub !== null;
  }

  /** The `spectators` section of `tk:stats`, or undefined before the first. */
  stats(): SpectatorStats | undefined {
    return this.hub?.stats();
  }
}
