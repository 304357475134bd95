/**
 * {@link SpectatorLane}: the spectators of one delay. It holds a mirror of the room's world fed
 * by the world's stream D seconds late, and encodes once per target group per flush: every
 * spectator watching the same target gets the same bytes. A delayed lane sends the frames of a
 * few flushes together in one message (a bundle, {@link framesPerBundle}).
 */
import { PriorityTiers } from "@tikron/aoi";
import { FrameFlag, FrameWriter, MAX_FRAMES_PER_BUNDLE, beginFrame, endFrame, type Schema, type SpectateTarget } from "@tikron/protocol";
import { MirrorWorld } from "../sync/mirrorWorld";
import type { SyncWorldOptions } from "../sync/quantizedStore";
import { SyncClient } from "../sync/syncClient";
import { Viewer, ViewerMode } from "../sync/viewer";
import type { SpectatorCounters } from "./spectatorStats";
import { type LaneMember, TargetGroup, removeFrom } from "./targetGroup";

export { type LaneMember, TargetGroup } from "./targetGroup";

/**
 * The longest span of flushes one bundle gathers (ms), whatever the delay: what a spectator
 * loses when its socket is behind at a send, and what its client holds before playing it out.
 */
export const MAX_BUNDLE_MS = 250;

/**
 * How many flushes' frames a lane of delay `delayMs` sends in one message (1: each frame as it
 * is made). A room sending many spectators is bound by its socket sends, not by bytes (1,000
 * spectators at 20 frames/s saturate a Workers thread), so frames that need not go out at once
 * go together. An undelayed spectator watches live: it gets every frame the moment it is made
 * (1). A delayed one already waits D: its frames go out when the last of a bundle is due (never
 * before a frame's time, so the delay stays a floor), which adds the bundle's span less one flush
 * to the delay; a tenth of D keeps that out of sight (100 ms at 1 s: 2 frames at 20 Hz, half the
 * sends), at most {@link MAX_BUNDLE_MS} (5 frames at 20 Hz from 3 s on). The SDK's watch entry
 * plays a bundle's frames out at their room times, so the view moves as smoothly as unbundled.
 */
export function framesPerBundle(delayMs: number, syncIntervalMs: number): number {
  if (delayMs <= 0 || !(syncIntervalMs > 0)) return 1;
  return Math.min(MAX_FRAMES_PER_BUNDLE, Math.max(1, Math.floor(Math.min(delayMs / 10, MAX_BUNDLE_MS) / syncIntervalMs)));
}

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
  /** The interval the room flushes at now (ms): how many flushes a bundle gathers. */
  readonly syncIntervalMs: () => number;
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
  /** Flushes encoded into the bundle being gathered, and how many it gathers. */
  private inBundle = 0;
  private perBundle = 1;
  /** Where a bundle is written at its send (one per lane: groups send one after another). */
  private readonly out = new FrameWriter(1 << 12);
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
    g.remove(m);
    if (g.size === 0) {
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
        // Another world (the room restarted): what was made of the old one goes out first, then
        // every baseline goes and every member gets a keyframe.
        this.sendBundles();
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
    const first = this.inBundle === 0;
    if (first) this.perBundle = framesPerBundle(this.delayMs, this.init.syncIntervalMs());
    for (const g of this.groups.values()) this.encodeGroup(g, first, e.tick, time, e.at + this.delayMs, w);
    if (++this.inBundle >= this.perBundle) this.sendBundles();
  }

  /** Sends every group what it gathered; the next flush starts a bundle. */
  private sendBundles(): void {
    this.inBundle = 0;
    for (const g of this.groups.values()) g.send(this.out, this.init.counters);
  }

  /**
   * One delta for the group's members (and those given a keyframe earlier in this bundle), then,
   * at a bundle's first flush, one keyframe for those joining. Gathered in the group until the
   * bundle is sent.
   */
  private encodeGroup(g: TargetGroup, first: boolean, tick: number, time: number, now: number, w: FrameWriter): void {
    const c = this.init.counters;
    const encoder = this.mirror.encoder;
    if (g.watching > 0) {
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
        g.addFrame(w);
      }
    }
    if (!first || g.joining.length === 0) return;
    // The keyframe: the group's view from an empty baseline, the state its members now hold.
    const fresh = g.freshClient();
    w.reset();
    const flagsPos = beginFrame(w, tick, time);
    c.encodes++;
    endFrame(w, flagsPos, encoder.encodeClient(fresh, w) ? FrameFlag.Delta : 0);
    if (g.watching === 0) {
      // A group of only new members starts from the keyframe's baseline.
      encoder.releaseClient(g.client);
      g.client = fresh;
    }
    g.addKeyframe(w);
  }
}
