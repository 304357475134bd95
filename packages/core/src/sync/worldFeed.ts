/**
 * {@link WorldFeed}: the simulation side of relays. It listens to a {@link SyncWorld} and, once
 * per flush, writes what a relay's `MirrorWorld` needs to encode every client exactly as the
 * world's own encoder would (layout in `feedWire`).
 */
import { IdBuffer } from "@tikron/aoi";
import { FrameWriter, type SchemaDecl } from "@tikron/protocol";
import { EntityRow } from "./entityRow";
import { FeedKind, FeedOp, writeEntityChange, writeEntityState, writeViewer } from "./feedWire";
import { growInt32 } from "./quantizedStore";
import type { SyncWorld } from "./syncWorld";
import { type Viewer, ViewerMode } from "./viewer";
import type { WorldLog } from "./worldLog";

/**
 * Writes a world's feed: one update per flush (the same bytes for every relay) and, on demand,
 * a snapshot for a relay that starts or lost its place. Updates are numbered, so a relay that
 * missed one notices at the next and asks for a snapshot instead of drifting.
 *
 * Between flushes it records the world's grid history (spawns, despawns, moves that changed a
 * position, forgotten viewers) in order. Steady state allocates nothing: the history and
 * per-slot marks are typed arrays that grow only with the world.
 *
 * Use: attach to the world (after restoring it from a checkpoint, if it was), then after every
 * `encoder.beginFlush` (which quantizes the world) call {@link writeUpdate}; a snapshot is
 * written right after an update, before the game runs again (or before the first update).
 */
export class WorldFeed<D extends SchemaDecl = SchemaDecl> implements WorldLog {
  private readonly ops = new FrameWriter(1 << 12);
  private readonly viewerBuf = new FrameWriter(256);
  private viewerCount = 0;
  private seq = 0;
  /** The flush index of the last update (what a relay's encoder flushes with). */
  private flushIndex = 0;
  private lastEpoch: number;
  /** Per slot: the number of the update whose interval last spawned into it. */
  private spawnedIn = new Int32Array(64);
  /** Per slot: the update that already carries it whole (one state per slot per update). */
  private writtenIn = new Int32Array(64);
  /** Slots spawned into since the last update, with repeats. */
  private spawnedIds = new Int32Array(64);
  private spawnedCount = 0;
  /** Per slot: the position last written, so an unchanged position is not written again. */
  private xs = new Float64Array(64);
  private ys = new Float64Array(64);
  /** Per viewer: `[mode, cx, cy, target, targetSerial, placements]` as last written. */
  private readonly sent = new WeakMap<Viewer, Float64Array>();
  private readonly visitViewer = this.noteViewer.bind(this);

  constructor(
    private readonly world: SyncWorld<D>,
    /**
     * Tells this feed's world from any other a relay mirrored before (e.g. the same room before
     * a restart): a mirror answers a snapshot of another incarnation with `"reset"`.
     */
    readonly incarnation: number = (Math.random() * 0x100000000) >>> 0,
  ) {
    if (world.log !== null) throw new Error("the world already has a feed");
    world.log = this;
    this.lastEpoch = world.epoch;
    // Moves are written only when a position changes, so start from where the grid has each.
    this.reserve(world.capacity - 1);
    const pos = new Float64Array(2);
    for (let i = 0; i < world.size; i++) {
      const e = world.live[i];
      if (!world.grid.copyPosition(e, pos)) continue;
      this.xs[e] = pos[0];
      this.ys[e] = pos[1];
    }
  }

  /** Number of the last update written (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Stops listening to the world. */
  detach(): void {
    if (this.world.log === this) this.world.log = null;
  }

  /**
   * Writes the update of the flush the world just quantized into `w` (appending). Throws when
   * a flush went by without an update: the next one could not be exact (write a snapshot for
   * every relay, after the next update, instead).
   */
  writeUpdate(w: FrameWriter, flushIndex: number): void {
    const world = this.world;
    if (world.epoch !== this.lastEpoch + 1) {
      throw new Error(`world feed: ${world.epoch - this.lastEpoch} flushes since the last update; write one after every flush`);
    }
    const seq = ++this.seq;
    w.u8(FeedKind.Update);
    w.varuint(seq);
    w.varuint(flushIndex);
    w.varuint(world.epoch);
    this.flushIndex = flushIndex;
    w.copyFrom(this.ops, 0, this.ops.offset);
    w.u8(FeedOp.End);
    this.ops.reset();

    // Entities spawned in this interval and still alive travel whole (deduplicated in place).
    let fresh = 0;
    for (let i = 0; i < this.spawnedCount; i++) {
      const id = this.spawnedIds[i];
      if (this.spawnedIn[id] !== seq || this.writtenIn[id] === seq || !world.isAlive(id)) continue;
      this.writtenIn[id] = seq;
      this.spawnedIds[fresh++] = id;
    }
    this.spawnedCount = 0;
    w.varuint(fresh);
    for (let i = 0; i < fresh; i++) writeEntityState(world, w, this.spawnedIds[i]);

    let changes = 0;
    for (let i = 0; i < world.changedCount; i++) if (this.spawnedIn[world.changed[i]] !== seq) changes++;
    w.varuint(changes);
    for (let i = 0; i < world.changedCount; i++) {
      const e = world.changed[i];
      if (this.spawnedIn[e] !== seq) writeEntityChange(world, w, e);
    }

    this.viewerBuf.reset();
    this.viewerCount = 0;
    world.viewers.forEach(this.visitViewer);
    w.varuint(this.viewerCount);
    w.copyFrom(this.viewerBuf, 0, this.viewerBuf.offset);
    this.lastEpoch = world.epoch;
  }

  /**
   * Writes the whole world as of the last update into `w` (appending), for one relay. Throws
   * unless written right after an update (or before the first, with nothing spawned since the
   * feed attached): the grid history since then would otherwise be in both the snapshot and
   * the next update.
   */
  writeSnapshot(w: FrameWriter): void {
    const world = this.world;
    if (this.ops.offset !== 0 || world.epoch !== this.lastEpoch) {
      throw new Error("world feed: a snapshot is written right after an update");
    }
    w.u8(FeedKind.Snapshot);
    w.u32(world.schema.hash >>> 0);
    w.u32(this.incarnation);
    w.f64(world.grid.cellSize);
    w.varuint(this.seq);
    w.varuint(this.flushIndex);
    w.varuint(world.epoch);
    const rows = world.rows;
    const n = world.size;
    w.varuint(n);
    for (let i = 0; i < n; i++) {
      const e = world.live[i];
      const er = e * world.rowSize;
      w.varuint(e);
      w.varuint(rows[er + EntityRow.Type]);
      w.varuint(rows[er + EntityRow.Serial]);
      writeEntityState(world, w, e);
    }
    this.writeGridOrder(w);
    w.varuint(world.changedCount);
    for (let i = 0; i < world.changedCount; i++) {
      const e = world.changed[i];
      const fields = rows[e * world.rowSize + EntityRow.FieldCount];
      w.varuint(e);
      for (let f = 0; f < fields; f++) w.varint(world.prevValues[e * world.stride + f]);
    }
    w.varuint(world.viewers.size);
    world.viewers.forEach((v) => writeViewer(w, v));
  }

  /**
   * The grid's members in the order its queries visit them: globals in their order, then a
   * query over everything, which scans occupied cells in order and each cell's members in
   * order. Inserting them into an empty grid in that order rebuilds the same cells in the
   * same order, so a mirror's queries return what this grid's return, in the same order.
   */
  private writeGridOrder(w: FrameWriter): void {
    const world = this.world;
    const grid = world.grid;
    const buf = new IdBuffer(Math.max(64, world.size));
    const globals = grid.queryGlobals(buf);
    w.varuint(globals);
    for (let i = 0; i < globals; i++) w.varuint(buf.ids[i]);
    const all = grid.queryCircle(0, 0, Infinity, buf);
    const placed = new Uint8Array(world.capacity);
    const pos = new Float64Array(2);
    w.varuint(all - globals);
    for (let i = globals; i < all; i++) {
      const e = buf.ids[i];
      placed[e] = 1;
      grid.copyPosition(e, pos);
      w.varuint(e).f64(pos[0]).f64(pos[1]);
    }
    // Entities at a non-finite position are in the grid but in no cell: no query finds them.
    let nowhere = 0;
    for (let i = 0; i < world.size; i++) if (world.isGlobal[world.live[i]] === 0 && placed[world.live[i]] === 0) nowhere++;
    w.varuint(nowhere);
    for (let i = 0; i < world.size; i++) {
      const e = world.live[i];
      if (world.isGlobal[e] !== 0 || placed[e] !== 0) continue;
      grid.copyPosition(e, pos);
      w.varuint(e).f64(pos[0]).f64(pos[1]);
    }
  }

  /** Writes a viewer into this update when the game changed it since the last one. */
  private noteViewer(v: Viewer): void {
    let s = this.sent.get(v);
    if (s === undefined) {
      s = new Float64Array(6);
      this.sent.set(v, s);
    } else if (s[0] === v.mode && s[3] === v.target && s[4] === v.targetSerial && !this.centerMoved(v, s)) {
      return;
    }
    s[0] = v.mode;
    s[1] = v.center[0];
    s[2] = v.center[1];
    s[3] = v.target;
    s[4] = v.targetSerial;
    s[5] = v.placements;
    writeViewer(this.viewerBuf, v);
    this.viewerCount++;
  }

  /** Whether the game moved a viewer's centre since `s` was written. */
  private centerMoved(v: Viewer, s: Float64Array): boolean {
    // A fixed viewer's centre is the game's alone: compared by value, so placing it where it
    // was costs nothing.
    if (v.mode === ViewerMode.Fixed) return !same(s[1], v.center[0]) || !same(s[2], v.center[1]);
    // A followed one's the encoder tracks, here and in each mirror, so its value says nothing
    // of the game; but while the target has no position (global) or is gone, the encoder keeps
    // the centre the game last placed, which only this feed can tell a mirror.
    return v.mode === ViewerMode.Follow && s[5] !== v.placements;
  }

  spawned(id: number, global: boolean, x: number, y: number): void {
    this.reserve(id);
    const rows = this.world.rows;
    const er = id * this.world.rowSize;
    const o = this.ops;
    o.u8(FeedOp.Spawn);
    o.varuint(id);
    o.varuint(rows[er + EntityRow.Type]);
    o.varuint(rows[er + EntityRow.Serial]);
    o.u8(global ? 1 : 0);
    if (!global) {
      o.f64(x);
      o.f64(y);
      this.xs[id] = x;
      this.ys[id] = y;
    }
    this.spawnedIn[id] = this.seq + 1;
    if (this.spawnedCount === this.spawnedIds.length) this.spawnedIds = growInt32(this.spawnedIds, this.spawnedCount * 2);
    this.spawnedIds[this.spawnedCount++] = id;
  }

  despawned(id: number): void {
    this.ops.u8(FeedOp.Despawn);
    this.ops.varuint(id);
  }

  moved(id: number, x: number, y: number): void {
    // A move to where the entity already is changes nothing in the grid: most entities of a
    // flush did not move, and none of them costs a byte.
    if (same(this.xs[id], x) && same(this.ys[id], y)) return;
    this.xs[id] = x;
    this.ys[id] = y;
    const o = this.ops;
    o.u8(FeedOp.Move);
    o.varuint(id);
    o.f64(x);
    o.f64(y);
  }

  viewerRemoved(playerId: number): void {
    this.ops.u8(FeedOp.ViewerGone);
    this.ops.varuint(playerId);
  }

  private reserve(id: number): void {
    if (id < this.spawnedIn.length) return;
    let cap = this.spawnedIn.length;
    while (cap <= id) cap *= 2;
    this.spawnedIn = growInt32(this.spawnedIn, cap);
    this.writtenIn = growInt32(this.writtenIn, cap);
    const xs = new Float64Array(cap);
    xs.set(this.xs);
    this.xs = xs;
    const ys = new Float64Array(cap);
    ys.set(this.ys);
    this.ys = ys;
  }
}

/** Equal doubles, NaN equal to itself (a NaN position must not be rewritten every flush). */
function same(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}
