/**
 * {@link SpectatorLane}: the spectators of one delay. It holds a mirror of the room's world fed
 * by the world's stream D seconds late, and encodes once per target group per flush: every
 * spectator watching the same target gets the same bytes.
 */
import { PriorityTiers } from "@tikron/aoi";
import { FrameFlag, beginFrame, endFrame, type FrameWriter, type Schema, type SpectateTarget } from "@tikron/protocol";
import { MirrorWorld } from "../sync/mirrorWorld";
import type { SyncWorldOptions } from "../sync/quantizedStore";
import { SyncClient } from "../sync/syncClient";
import { Viewer, ViewerMode } from "../sync/viewer";
import type { SpectatorCounters } from "./spectatorStats";

/** One flush of the room's world stream, as a lane replays it later. */
export interface StreamEntry {
  /** When it arrived (the host's clock, ms). */
  readonly at: number;
  /** The room's tick and time (ms since its epoch) of the flush. */
  readonly tick: number;
  readonly time: number;
  /** The world feed's update, and a snapshot written right after it (or null). */
  readonly update: Uint8Array;
  readonly snapshot: Uint8Array | null;
}

/** What a lane sends to and reads of one spectator socket. */
export interface LaneMember {
  /** Sends one message (a view of a reused writer, valid during the call). */
  send(data: Uint8Array): void;
  /** Whether the socket is too far behind to take a frame now. */
  behind(): boolean;
  /** Sends the spectator a welcome again: its client clears its view before the next frame (a keyframe). */
  rewelcome(): void;
  /** The group it is in, or null while it waits for its first frame. */
  group: TargetGroup | null;
  /** What it watches (null: anyone playing, picked once the lane's mirror holds the world). */
  target: SpectateTarget | null;
  /** True until its first keyframe (a fresh client: no second welcome needed). */
  fresh: boolean;
}

/**
 * The spectators watching one target in one lane: one baseline, one encode per flush, many
 * sends. Members got every frame since their keyframe, so they all hold the group's baseline;
 * one that could not take a frame (behind) leaves and rejoins with a keyframe.
 */
export class TargetGroup {
  readonly members: LaneMember[] = [];
  /** Members waiting for a keyframe (new, switched here, or back from being behind). */
  readonly joining: LaneMember[] = [];
  /** Whether the last frame carried nothing (idle frames are then sent every `idleFrameMs`). */
  settled = false;
  lastFrameAt = -Infinity;

  constructor(
    readonly key: string,
    public client: SyncClient,
    /** Makes a client with this group's viewer and an empty baseline (a keyframe's). */
    readonly freshClient: () => SyncClient,
  ) {}
}

/**
 * The key a target is grouped by: `p<id>` for a player, `@<x>,<y>` for a point.
 * @internal
 */
export function targetKey(t: SpectateTarget): string {
  return "player" in t ? `p${t.player}` : `@${t.x},${t.y}`;
}

/** A lane's knobs, from its hub. */
export interface LaneInit {
  readonly schema: Schema;
  /** The room world's options: the mirror shares its AOI radius and cell size. */
  readonly world: SyncWorldOptions;
  readonly delayMs: number;
  readonly idleFrameMs: number;
  readonly counters: SpectatorCounters;
  /** The stream needs a snapshot (this lane's mirror lost its place or has none yet). */
  readonly wantSnapshot: () => void;
}

/** The spectators of one delay (see the file's comment). */
export class SpectatorLane {
  readonly mirror: MirrorWorld;
  readonly delayMs: number;
  private readonly queue: StreamEntry[] = [];
  private head = 0;
  private readonly groups = new Map<string, TargetGroup>();
  /** Members that named no target, placed once the mirror holds the world. */
  private readonly unplaced: LaneMember[] = [];
  private snapshotAsked = false;
  /** Members in this lane. */
  size = 0;

  constructor(private readonly init: LaneInit) {
    const radius = new PriorityTiers(init.world.tiers).radius;
    // Every entity in view is refreshed every flush (one tier): after each frame a group's
    // baseline is the mirror's current values, exactly what a keyframe gives a new member, so
    // members who joined at different flushes can share one delta. Spectators pay a few more
    // bytes than players for it; the feed and the grid are the world's own.
    this.mirror = new MirrorWorld(init.schema, { tiers: [{ radius, every: 1 }], cellSize: init.world.cellSize ?? Math.max(radius / 2, 1) });
    this.delayMs = init.delayMs;
  }

  /** Adds a member (it gets a keyframe at the next flush the lane encodes). */
  add(m: LaneMember): void {
    this.size++;
    this.place(m);
  }

  /** Removes a member for good. */
  remove(m: LaneMember): void {
    this.size--;
    this.leaveGroup(m);
  }

  /** Target groups now (one encode each per flush). */
  get groupCount(): number {
    return this.groups.size;
  }

  /** Moves a member to another target: a welcome and a keyframe of the new one at the next flush. */
  switchTarget(m: LaneMember, target: SpectateTarget): void {
    this.leaveGroup(m);
    m.target = target;
    this.place(m);
  }

  /** Queues one flush of the stream and replays every flush that is due by now. */
  push(entry: StreamEntry, now: number, w: FrameWriter): void {
    this.queue.push(entry);
    const due = now - this.delayMs;
    while (this.head < this.queue.length && this.queue[this.head]!.at <= due) this.replay(this.queue[this.head++]!, w);
    if (this.head > 64 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  private place(m: LaneMember): void {
    const t = m.target;
    if (t === null) {
      this.unplaced.push(m);
      return;
    }
    const key = targetKey(t);
    let g = this.groups.get(key);
    if (!g) {
      g = this.makeGroup(key, t);
      this.groups.set(key, g);
    }
    m.group = g;
    g.joining.push(m);
  }

  private leaveGroup(m: LaneMember): void {
    const g = m.group;
    if (!g) {
      removeFrom(this.unplaced, m);
      return;
    }
    m.group = null;
    removeFrom(g.members, m) || removeFrom(g.joining, m);
    if (g.members.length + g.joining.length === 0) {
      this.mirror.encoder.releaseClient(g.client);
      this.groups.delete(g.key);
    }
  }

  private makeGroup(key: string, t: SpectateTarget): TargetGroup {
    const mirror = this.mirror;
    if ("player" in t) {
      // See as the player sees: their viewer, kept by the feed.
      const make = () => mirror.encoder.createClient(t.player);
      return new TargetGroup(key, make(), make);
    }
    const viewer = new Viewer(-1, mirror).fixed(t.x, t.y);
    const make = () => new SyncClient(-1, viewer, mirror.stride, PriorityTiers.phaseFor(0));
    return new TargetGroup(key, make(), make);
  }

  /** A player whose viewer follows something now, else the world's origin. */
  private anyTarget(): SpectateTarget {
    for (const [pid, v] of this.mirror.viewers) if (v.mode === ViewerMode.Follow) return { player: pid };
    return { x: 0, y: 0 };
  }

  private replay(e: StreamEntry, w: FrameWriter): void {
    const mirror = this.mirror;
    try {
      mirror.apply(e.update);
      if (e.snapshot !== null && mirror.apply(e.snapshot) === "reset") {
        // Another world (the room restarted): every baseline goes, every member gets a keyframe.
        for (const g of this.groups.values()) {
          this.mirror.encoder.releaseClient(g.client);
          g.client = g.freshClient();
          for (const m of g.members) g.joining.push(m);
          g.members.length = 0;
        }
      }
    } catch (err) {
      // A message this mirror cannot read leaves it waiting for a snapshot (MirrorWorld.apply).
      this.init.counters.streamErrors++;
      console.error("[spectators] world stream refused", err);
    }
    if (!mirror.isSynced) {
      if (!this.snapshotAsked) this.init.wantSnapshot();
      this.snapshotAsked = true;
      return;
    }
    this.snapshotAsked = false;
    if (this.size === 0) return;
    if (this.unplaced.length > 0) {
      const target = this.anyTarget();
      for (const m of this.unplaced.splice(0)) {
        m.target = target;
        this.place(m);
      }
    }
    mirror.encoder.beginFlush(mirror.flushIndex);
    const time = e.time + this.delayMs;
    for (const g of this.groups.values()) this.encodeGroup(g, e.tick, time, e.at + this.delayMs, w);
  }

  /** One delta for the group's members, then one keyframe for those joining. */
  private encodeGroup(g: TargetGroup, tick: number, time: number, now: number, w: FrameWriter): void {
    const c = this.init.counters;
    const encoder = this.mirror.encoder;
    if (g.members.length > 0) {
      w.reset();
      const flagsPos = beginFrame(w, tick, time);
      c.encodes++;
      const changed = encoder.encodeClient(g.client, w);
      const idleMs = this.init.idleFrameMs;
      // Like a player's: no frame while nothing changes, but a header every idleFrameMs.
      const send = changed || (idleMs > 0 && !(g.settled && now - g.lastFrameAt < idleMs));
      g.settled = !changed;
      if (send) {
        g.lastFrameAt = now;
        endFrame(w, flagsPos, changed ? FrameFlag.Delta : 0);
        const frame = w.peek();
        const members = g.members;
        for (let i = 0; i < members.length; i++) {
          const m = members[i]!;
          if (m.behind()) {
            // It would miss this delta: out of the group, back with a keyframe once it reads.
            members[i--] = members[members.length - 1]!;
            members.pop();
            g.joining.push(m);
            c.skipped++;
            continue;
          }
          m.send(frame);
          c.frames++;
          c.bytesOut += frame.byteLength;
        }
      }
    }
    if (g.joining.length === 0) return;
    // The keyframe: the group's view from an empty baseline, the state its members now hold.
    const fresh = g.freshClient();
    w.reset();
    const flagsPos = beginFrame(w, tick, time);
    c.encodes++;
    endFrame(w, flagsPos, encoder.encodeClient(fresh, w) ? FrameFlag.Delta : 0);
    if (g.members.length === 0) {
      // A group of only new members starts from the keyframe's baseline.
      encoder.releaseClient(g.client);
      g.client = fresh;
    }
    const frame = w.peek();
    const joining = g.joining;
    let kept = 0;
    for (let i = 0; i < joining.length; i++) {
      const m = joining[i]!;
      if (m.behind()) {
        joining[kept++] = m;
        continue;
      }
      // A member that watched something else holds another view: the welcome clears it.
      if (!m.fresh) m.rewelcome();
      m.fresh = false;
      m.send(frame);
      c.keyframes++;
      c.bytesOut += frame.byteLength;
      g.members.push(m);
    }
    joining.length = kept;
  }
}

function removeFrom<T>(list: T[], item: T): boolean {
  const i = list.indexOf(item);
  if (i < 0) return false;
  list[i] = list[list.length - 1]!;
  list.pop();
  return true;
}
