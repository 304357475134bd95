/**
 * {@link TargetGroup}: the spectators watching one target in one lane, and the frames made for
 * them since their last send (a bundle, protocol bundle.ts). The lane encodes; the group holds
 * what was encoded and sends it, to each member the same bytes.
 */
import { FrameWriter, beginBundle, type SpectateTarget } from "@tikron/protocol";
import type { SyncClient } from "../sync/syncClient";
import type { SpectatorCounters } from "./spectatorStats";

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

/** Frames made since the last send, kept whole one after another, and where each ends. */
class PendingFrames {
  readonly bytes = new FrameWriter(1 << 10);
  readonly ends: number[] = [];

  get count(): number {
    return this.ends.length;
  }

  /** Appends the frame written in `w`. */
  add(w: FrameWriter): void {
    this.bytes.copyFrom(w, 0, w.offset);
    this.ends.push(this.bytes.offset);
  }

  clear(): void {
    this.bytes.reset();
    this.ends.length = 0;
  }

  /**
   * The message that carries them: the frame itself when there is one (what an undelayed
   * spectator always gets), else a BUNDLE written in `out`.
   */
  message(out: FrameWriter): Uint8Array {
    const ends = this.ends;
    if (ends.length === 1) return this.bytes.peek();
    beginBundle(out.reset());
    let start = 0;
    for (let i = 0; i < ends.length; i++) {
      out.varuint(ends[i]! - start).copyFrom(this.bytes, start, ends[i]!);
      start = ends[i]!;
    }
    return out.peek();
  }
}

/**
 * The spectators watching one target in one lane: one baseline, one encode per flush, many
 * sends. Members got every frame since their keyframe, so they all hold the group's baseline;
 * one that could not take a send (behind) leaves and rejoins with a keyframe.
 */
export class TargetGroup {
  readonly members: LaneMember[] = [];
  /** Members waiting for a keyframe (new, switched here, or back from being behind): given one at a bundle's first frame. */
  readonly joining: LaneMember[] = [];
  /** Members given a keyframe at this bundle's first frame: they get it, then the bundle's later frames. */
  readonly admitted: LaneMember[] = [];
  /** Whether the last frame carried nothing (idle frames are then sent every `idleFrameMs`). */
  settled = false;
  lastFrameAt = -Infinity;
  /** The members' frames since the last send. */
  private readonly pending = new PendingFrames();
  /** The admitted members' frames: their keyframe, then the same frames as the members'. */
  private readonly keyed = new PendingFrames();

  constructor(
    readonly key: string,
    public client: SyncClient,
    /** Makes a client with this group's viewer and an empty baseline (a keyframe's). */
    readonly freshClient: () => SyncClient,
  ) {}

  /** Members and admitted ones: those whose baseline is the group's. */
  get watching(): number {
    return this.members.length + this.admitted.length;
  }

  /** Everyone in the group, waiting or not. */
  get size(): number {
    return this.members.length + this.admitted.length + this.joining.length;
  }

  /** A delta (or idle frame) written in `w`, for the members and the admitted ones. */
  addFrame(w: FrameWriter): void {
    if (this.members.length > 0) this.pending.add(w);
    if (this.admitted.length > 0) this.keyed.add(w);
  }

  /** A keyframe written in `w`, for the joining members not behind now: they are admitted. */
  addKeyframe(w: FrameWriter): void {
    const joining = this.joining;
    let kept = 0;
    for (let i = 0; i < joining.length; i++) {
      const m = joining[i]!;
      if (m.behind()) joining[kept++] = m;
      else this.admitted.push(m);
    }
    joining.length = kept;
    if (this.admitted.length > 0) this.keyed.add(w);
  }

  /**
   * Sends what was made since the last send, one message per member (`out` writes a bundle),
   * and starts the next bundle. A member behind now misses it: out of the group, back with a
   * keyframe at a later bundle's first frame.
   */
  send(out: FrameWriter, c: SpectatorCounters): void {
    const pending = this.pending;
    if (pending.count > 0) {
      const msg = pending.message(out);
      const members = this.members;
      for (let i = 0; i < members.length; i++) {
        const m = members[i]!;
        if (m.behind()) {
          members[i--] = members[members.length - 1]!;
          members.pop();
          this.joining.push(m);
          c.skipped += pending.count;
          continue;
        }
        m.send(msg);
        c.sends++;
        c.frames += pending.count;
        c.bytesOut += msg.byteLength;
      }
      pending.clear();
    }
    const keyed = this.keyed;
    if (keyed.count > 0) {
      const msg = keyed.message(out);
      for (const m of this.admitted) {
        if (m.behind()) {
          this.joining.push(m);
          continue;
        }
        // A member that watched something else holds another view: the welcome clears it.
        if (!m.fresh) m.rewelcome();
        m.fresh = false;
        m.send(msg);
        c.sends++;
        c.keyframes++;
        c.frames += keyed.count - 1;
        c.bytesOut += msg.byteLength;
        this.members.push(m);
      }
      keyed.clear();
    }
    this.admitted.length = 0;
  }

  /** Takes `m` out (it left or switched); false when it was not in the group. */
  remove(m: LaneMember): boolean {
    return removeFrom(this.members, m) || removeFrom(this.admitted, m) || removeFrom(this.joining, m);
  }
}

/** Removes `item` from `list` (order not kept); false when it was not there. */
export function removeFrom<T>(list: T[], item: T): boolean {
  const i = list.indexOf(item);
  if (i < 0) return false;
  list[i] = list[list.length - 1]!;
  list.pop();
  return true;
}
