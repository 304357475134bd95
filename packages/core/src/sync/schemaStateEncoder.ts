import { IdBuffer, PriorityTiers } from "@tikron/aoi";
import {
  FrameWriter,
  type EntityType,
  type EventSchema,
  FieldCode,
  type SchemaDecl,
  writeDeltaSections,
  writeScalarDelta,
} from "@tikron/protocol";
import type { StateEncoder } from "../stateEncoder";
import { ClientRow, SyncClient } from "./syncClient";
import { EntityRow } from "./entityRow";
import { writeEnter, writeUtf8 } from "./entityWire";
import type { QuantizedWorld } from "./quantizedWorld";
import { type Viewer, ViewerMode } from "./viewer";

/**
 * The binary rooms' {@link StateEncoder}: per client, what it can see (grid AOI around its
 * viewer), only what changed since its baseline, refreshed by distance tier, in the schema's
 * quantized delta format (see `DeltaSection` in the protocol for the body layout).
 *
 * Allocation-free in steady state: the world quantizes once per flush into shared typed
 * arrays, per-client baselines are packed typed-array rows, and the per-encode scratch
 * (visible set, classification lists, id→row index) is owned here and shared by all clients.
 * Nothing grows unless the world or a client's view reaches a new largest size.
 */
export class SchemaStateEncoder<D extends SchemaDecl = SchemaDecl> implements StateEncoder<SyncClient> {
  /** Hash of the world's schema; sent in the welcome so clients can refuse a mismatched decoder. */
  readonly schemaHash: number;
  /** The schema's declared events (what `ctx.emit` encodes), or null. */
  readonly events: EventSchema | null;
  private flushIndex = 0;

  // Per entity id, a copy of the current client's row header: [stamp, row, serial, syncedAt],
  // valid where the stamp is current. Filled by one sequential pass over the client's rows, so
  // the per-visible-entity checks read this small shared array instead of random client rows.
  private stamp = 0;
  private seen = new Int32Array(64 * SEEN);
  private visited = new Uint8Array(64);
  private readonly visible = new IdBuffer(256);
  private enterIds = new Int32Array(64);
  /** Row an enter replaces (same id, new serial), or -1 for a new row. */
  private enterRow = new Int32Array(64);
  private updateRow = new Int32Array(64);
  private updateMask = new Int32Array(64);
  private leaveRow = new Int32Array(64);

  // This flush's shared updates: for each entity that changed, its update relative to the
  // values it had at the previous flush, which is exactly what a client synced then holds.
  // Encoded once per entity instead of once per (client, entity); clients copy the bytes.
  private readonly shared = new FrameWriter(1 << 12);
  private sharedStart = new Int32Array(64);
  private sharedEnd = new Int32Array(64);

  private readonly trackViewer = (v: Viewer): void => v.track(this.world.grid);

  /** @internal Made by `SyncWorld` and `MirrorWorld`; use `world.encoder`. */
  constructor(private readonly world: QuantizedWorld<D>) {
    this.schemaHash = world.schema.hash;
    this.events = world.schema.events;
  }

  createClient(playerId: number): SyncClient {
    return new SyncClient(playerId, this.world.viewer(playerId), this.world.stride, PriorityTiers.phaseFor(playerId));
  }

  releaseClient(state: SyncClient): void {
    state.released = true;
    state.count = 0;
  }

  settled(c: SyncClient): boolean {
    // Set to the world's rows version by an encode that held nothing back, -1 by one that did.
    return c.released || c.quietRows === this.world.rowsVersion;
  }

  beginFlush(flushIndex: number): void {
    this.flushIndex = flushIndex;
    const world = this.world;
    world.quantizeAll();
    world.viewers.forEach(this.trackViewer);
    const cap = world.capacity;
    if (this.seen.length < cap * SEEN) {
      this.seen = new Int32Array(cap * SEEN);
      this.sharedStart = new Int32Array(cap);
      this.sharedEnd = new Int32Array(cap);
      this.stamp = 0;
    }
    const w = this.shared.reset();
    for (let i = 0; i < world.changedCount; i++) {
      const e = world.changed[i];
      this.sharedStart[e] = w.offset;
      this.writeSharedUpdate(w, e);
      this.sharedEnd[e] = w.offset;
    }
  }

  /** A hash of every entity row as the last flush quantized it (see `StateEncoder.digest`). */
  digest(): number {
    const { rows, capacity, rowSize } = this.world;
    let h = 0x811c9dc5;
    for (let i = 0, n = capacity * rowSize; i < n; i++) h = Math.imul(h ^ rows[i]!, 0x01000193);
    return h >>> 0;
  }

  /** Every live entity as enters (see `StateEncoder.writeWorld`). */
  writeWorld(w: FrameWriter): void {
    const { rows, capacity, rowSize } = this.world;
    let n = 0;
    for (let e = 0; e < capacity; e++) if (rows[e * rowSize + EntityRow.Type]! >= 0) n++;
    if (n === 0) return;
    writeDeltaSections(w, 0, n, 0);
    w.varuint(n);
    for (let e = 0; e < capacity; e++) if (rows[e * rowSize + EntityRow.Type]! >= 0) writeEnter(this.world, w, e);
  }

  /** The update of entity `e` from its previous values (`world.prevValues`) to its current ones. */
  private writeSharedUpdate(w: FrameWriter, e: number): void {
    const world = this.world;
    const er = e * world.rowSize;
    const wrows = world.rows;
    const t: EntityType = world.schema.types[wrows[er + EntityRow.Type]];
    const qo = er + EntityRow.Values;
    const so = e * world.stride;
    const prev = world.prevValues;
    const fields = t.fields;
    let mask = 0;
    for (let f = 0; f < fields.length; f++) if (wrows[qo + f] !== prev[so + f]) mask |= 1 << f;
    w.varuint(e);
    w.varuint(mask >>> 0);
    for (let f = 0; f < fields.length; f++) {
      if ((mask & (1 << f)) === 0) continue;
      const field = fields[f].field;
      const code = field.code;
      if (code === FieldCode.String) writeUtf8(w, world.stringBytes[so + f]!);
      else if (code === FieldCode.Map) world.maps[so + f]!.writeChange(w, prev[so + f]);
      else writeScalarDelta(w, field, wrows[qo + f], prev[so + f]);
    }
  }

  encodeClient(c: SyncClient, w: FrameWriter): boolean {
    if (c.released) return false;
    const world = this.world;
    // Nothing this client could see moved or changed since it was left holding all of it
    // (an idle room, most flushes): the delta is empty, known without the AOI query or the scan.
    const viewer = c.viewer;
    const grid = world.grid;
    viewer.track(grid);
    const center = viewer.center;
    if (
      c.quietRows === world.rowsVersion &&
      c.quietGrid === grid.version &&
      c.quietMode === viewer.mode &&
      c.quietAt[0] === center[0] &&
      c.quietAt[1] === center[1]
    ) {
      return false;
    }
    const wrows = world.rows;
    const W = world.rowSize;
    const epoch = world.epoch;
    const tiers = world.tiers;
    const heads = c.heads;
    const H = ClientRow.Size;
    const values = c.values;
    const F = c.maxFields;

    // 1. Index the client's rows by entity id.
    if (this.stamp === 0x7fffffff) {
      // Restart stamps rather than wrap: an old entry must never look current.
      this.seen.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    const seen = this.seen;
    if (this.visited.length < c.count) this.visited = new Uint8Array(c.capacity);
    const visited = this.visited;
    for (let j = 0; j < c.count; j++) {
      const h = j * H;
      const s = heads[h + ClientRow.Entity] * SEEN;
      seen[s] = stamp;
      seen[s + 1] = j;
      seen[s + 2] = heads[h + ClientRow.Serial];
      seen[s + 3] = heads[h + ClientRow.SyncedAt];
      visited[j] = 0;
    }

    // 2. What the viewer sees now.
    const vis = this.visible;
    this.queryViewer(c, vis);
    if (this.enterIds.length < vis.length || this.leaveRow.length < c.count) this.growLists(Math.max(vis.length, c.count));

    // 3. Classify: enter (new or reused id), update (changed and due), or nothing.
    let nEnter = 0;
    let nUpdate = 0;
    let deferred = false;
    const ids = vis.ids;
    const dist2 = vis.dist2;
    for (let i = 0; i < vis.length; i++) {
      const e = ids[i];
      const s = e * SEEN;
      if (seen[s] !== stamp) {
        this.enterIds[nEnter] = e;
        this.enterRow[nEnter++] = -1;
        continue;
      }
      const j = seen[s + 1];
      visited[j] = 1;
      const er = e * W;
      if (seen[s + 2] !== wrows[er + EntityRow.Serial]) {
        this.enterIds[nEnter] = e;
        this.enterRow[nEnter++] = j;
        continue;
      }
      const changedAt = wrows[er + EntityRow.ChangedAt];
      const syncedAt = seen[s + 3];
      if (changedAt <= syncedAt) continue;
      // The one per-entity scheduling decision; a byte budget would rank here instead.
      if (!tiers.isDueAt(dist2[i], this.flushIndex, c.phase)) {
        deferred = true;
        continue;
      }
      if (changedAt === epoch && syncedAt === epoch - 1) {
        // Holds the previous flush's values: the shared update fits (mask 0 marks it).
        this.updateRow[nUpdate] = j;
        this.updateMask[nUpdate++] = 0;
        continue;
      }
      const n = wrows[er + EntityRow.FieldCount];
      const qo = er + EntityRow.Values;
      const bo = j * F;
      let mask = 0;
      for (let f = 0; f < n; f++) if (wrows[qo + f] !== values[bo + f]) mask |= 1 << f;
      if (mask === 0) {
        // Changed and changed back: the baseline is current, so skip future compares.
        heads[j * H + ClientRow.SyncedAt] = epoch;
        continue;
      }
      this.updateRow[nUpdate] = j;
      this.updateMask[nUpdate++] = mask;
    }
    let nLeave = 0;
    for (let j = 0; j < c.count; j++) if (visited[j] === 0) this.leaveRow[nLeave++] = j;
    // After this encode the client holds everything in view unless its tiers held some back.
    if (deferred) c.quietRows = -1;
    else {
      c.quietRows = world.rowsVersion;
      c.quietGrid = grid.version;
      c.quietMode = viewer.mode;
      c.quietAt[0] = center[0];
      c.quietAt[1] = center[1];
    }
    if (nEnter + nUpdate + nLeave === 0) return false;

    // 4. Write the body.
    writeDeltaSections(w, nLeave, nEnter, nUpdate);
    if (nLeave > 0) {
      w.varuint(nLeave);
      for (let i = 0; i < nLeave; i++) w.varuint(heads[this.leaveRow[i] * H + ClientRow.Entity]);
    }
    if (nEnter > 0) {
      w.varuint(nEnter);
      for (let i = 0; i < nEnter; i++) writeEnter(this.world, w, this.enterIds[i]);
    }
    if (nUpdate > 0) {
      w.varuint(nUpdate);
      for (let i = 0; i < nUpdate; i++) {
        const mask = this.updateMask[i];
        if (mask !== 0) {
          this.writeUpdate(w, c, this.updateRow[i], mask);
          continue;
        }
        const e = heads[this.updateRow[i] * H + ClientRow.Entity];
        w.copyFrom(this.shared, this.sharedStart[e], this.sharedEnd[e]);
      }
    }

    // 5. The client now holds what was written: bring its baseline up to date.
    for (let i = 0; i < nUpdate; i++) {
      const j = this.updateRow[i];
      const er = heads[j * H + ClientRow.Entity] * W;
      copyRow(wrows, er + EntityRow.Values, values, j * F, wrows[er + EntityRow.FieldCount]);
      heads[j * H + ClientRow.SyncedAt] = epoch;
    }
    for (let i = 0; i < nEnter; i++) {
      const j = this.enterRow[i];
      if (j >= 0) this.setRow(c, j, this.enterIds[i]);
    }
    // Descending, so a swap-remove never moves a row still to be removed.
    for (let i = nLeave - 1; i >= 0; i--) c.removeRow(this.leaveRow[i]);
    for (let i = 0; i < nEnter; i++) {
      if (this.enterRow[i] >= 0) continue;
      c.reserve(c.count + 1);
      this.setRow(c, c.count++, this.enterIds[i]);
    }
    return true;
  }

  private setRow(c: SyncClient, j: number, e: number): void {
    const wrows = this.world.rows;
    const er = e * this.world.rowSize;
    const h = j * ClientRow.Size;
    c.heads[h + ClientRow.Entity] = e;
    c.heads[h + ClientRow.Serial] = wrows[er + EntityRow.Serial];
    c.heads[h + ClientRow.SyncedAt] = this.world.epoch;
    copyRow(wrows, er + EntityRow.Values, c.values, j * c.maxFields, wrows[er + EntityRow.FieldCount]);
  }

  private queryViewer(c: SyncClient, out: IdBuffer): void {
    const v = c.viewer;
    const world = this.world;
    const center = v.center;
    // Tracked at `beginFlush` already; again here for a viewer the game changed since, between
    // the slices of a sliced flush (a socket event's handler). Nothing else moves the grid or a
    // viewer within a flush, so in a mirror and its simulation this changes nothing.
    v.track(world.grid);
    if (v.mode === ViewerMode.Blind) world.grid.queryGlobals(out);
    else world.grid.queryCircle(center[0], center[1], world.tiers.radius, out);
  }

  private writeUpdate(w: FrameWriter, c: SyncClient, j: number, mask: number): void {
    const world = this.world;
    const e = c.heads[j * ClientRow.Size + ClientRow.Entity];
    const er = e * world.rowSize;
    const t: EntityType = world.schema.types[world.rows[er + EntityRow.Type]];
    w.varuint(e);
    w.varuint(mask >>> 0);
    const qo = er + EntityRow.Values;
    const bo = j * c.maxFields;
    const so = e * world.stride;
    const fields = t.fields;
    for (let f = 0; f < fields.length; f++) {
      if ((mask & (1 << f)) === 0) continue;
      const field = fields[f].field;
      const code = field.code;
      if (code === FieldCode.String) writeUtf8(w, world.stringBytes[so + f]!);
      else if (code === FieldCode.Map) world.maps[so + f]!.writeChange(w, c.values[bo + f]);
      else writeScalarDelta(w, field, world.rows[qo + f], c.values[bo + f]);
    }
  }

  private growLists(n: number): void {
    let cap = this.enterIds.length;
    while (cap < n) cap *= 2;
    this.enterIds = new Int32Array(cap);
    this.enterRow = new Int32Array(cap);
    this.updateRow = new Int32Array(cap);
    this.updateMask = new Int32Array(cap);
    this.leaveRow = new Int32Array(cap);
  }
}

/** Copies one row of quantized values (a loop: `subarray` would allocate a view per call). */
function copyRow(from: Int32Array, fromOffset: number, to: Int32Array, toOffset: number, n: number): void {
  for (let i = 0; i < n; i++) to[toOffset + i] = from[fromOffset + i];
}

/** Ints per entity in the encoder's scratch copy of a client's row headers. */
const SEEN = 4;
