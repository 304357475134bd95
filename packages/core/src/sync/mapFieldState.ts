import { type BinaryReader, DecodeError, type FrameWriter, type Field, quantize, writeMapChangeHeader, writeScalarFull } from "@tikron/protocol";

/** How a map's state travels in a feed update (see `writeChangeOfLastSync`). */
const MapStateForm = { Whole: 0, Change: 1 } as const;

/** Tombstones kept beyond the live key count before the oldest half is forgotten. */
const MIN_TOMBSTONES = 32;

/**
 * The quantized server copy of one map field of one entity, with the epoch at which each key
 * last changed and recent removals (tombstones). A client's baseline is then a single epoch
 * per map: the keys to send are those changed after it, the removals those recorded after it.
 * When the tombstones a client would need were already forgotten (it is older than `horizon`)
 * the map is resent whole with a reset.
 *
 * Entries live in dense parallel arrays (swap-remove), so syncing a stable map allocates
 * nothing; only new keys grow the arrays.
 */
export class MapFieldState {
  /** Epoch of the last change (what a client baseline stores and compares). */
  version = 0;
  private readonly index = new Map<number, number>();
  private readonly keys: number[] = [];
  private readonly qs: number[] = [];
  private readonly vers: number[] = [];
  private readonly seen: number[] = [];
  private tombKeys: number[] = [];
  private tombVers: number[] = [];
  private horizon = 0;

  // Keys new in this sync, admitted after removals so a full map frees room first.
  private readonly pendingKeys: number[] = [];
  private readonly pendingQs: number[] = [];
  private pendingCount = 0;

  // Context of the sync in progress, read by the visitor (a bound method: no closure per call).
  private syncEpoch = 0;
  private syncStamp = 0;
  private syncChanged = false;
  private readonly visit: (v: unknown, k: unknown) => void;

  constructor(
    private readonly valueField: Field,
    private readonly maxKeys: number,
  ) {
    this.visit = this.visitEntry.bind(this);
  }

  /** Number of synced keys. */
  get size(): number {
    return this.keys.length;
  }

  /**
   * Quantizes the game's map `src` (anything else counts as empty) into this state at `epoch`.
   * Returns true when any key was added, changed or removed.
   */
  sync(src: unknown, epoch: number): boolean {
    this.syncEpoch = epoch;
    this.syncStamp++;
    this.syncChanged = false;
    this.pendingCount = 0;
    if (src instanceof Map) src.forEach(this.visit);
    const stamp = this.syncStamp;
    for (let i = this.keys.length - 1; i >= 0; i--) {
      if (this.seen[i] === stamp) continue;
      this.tombKeys.push(this.keys[i]);
      this.tombVers.push(epoch);
      this.removeAt(i);
      this.syncChanged = true;
    }
    for (let i = 0; i < this.pendingCount && this.keys.length < this.maxKeys; i++) {
      const k = this.pendingKeys[i];
      this.index.set(k, this.keys.length);
      this.keys.push(k);
      this.qs.push(this.pendingQs[i]);
      this.vers.push(epoch);
      this.seen.push(stamp);
      this.syncChanged = true;
    }
    // Until within bounds, not just once: a sync that changes nothing must not forget
    // anything, or a mirror of this state (see `writeChangeOfLastSync`) would never hear of it.
    while (this.tombKeys.length > MIN_TOMBSTONES + 2 * this.keys.length) this.forgetOldTombstones();
    if (this.syncChanged) this.version = epoch;
    return this.syncChanged;
  }

  private visitEntry(v: unknown, k: unknown): void {
    if (typeof k !== "number" || !(k >= 0 && k <= 0x7fffffff) || k % 1 !== 0) return;
    const q = quantize(this.valueField, v);
    const i = this.index.get(k);
    if (i === undefined) {
      if (this.pendingCount < this.maxKeys) {
        this.pendingKeys[this.pendingCount] = k;
        this.pendingQs[this.pendingCount++] = q;
      }
      return;
    }
    this.seen[i] = this.syncStamp;
    if (this.qs[i] !== q) {
      this.qs[i] = q;
      this.vers[i] = this.syncEpoch;
      this.syncChanged = true;
    }
  }

  private removeAt(i: number): void {
    const last = this.keys.length - 1;
    this.index.delete(this.keys[i]);
    if (i !== last) {
      this.keys[i] = this.keys[last];
      this.qs[i] = this.qs[last];
      this.vers[i] = this.vers[last];
      this.seen[i] = this.seen[last];
      this.index.set(this.keys[i], i);
    }
    this.keys.pop();
    this.qs.pop();
    this.vers.pop();
    this.seen.pop();
  }

  private forgetOldTombstones(): void {
    // Tombstones are in epoch order, so dropping a prefix moves the horizon to its last epoch.
    const drop = this.tombKeys.length >> 1;
    this.horizon = this.tombVers[drop - 1];
    this.tombKeys = this.tombKeys.slice(drop);
    this.tombVers = this.tombVers.slice(drop);
  }

  /**
   * Writes the state whole, internals included (keys in their array order, the epoch each last
   * changed at, tombstones, horizon): a mirror of the world (see `MirrorWorld`) then answers
   * {@link writeFull} and {@link writeChange} for any baseline with the same bytes as this one.
   */
  writeState(w: FrameWriter): void {
    w.varuint(this.version);
    w.varuint(this.horizon);
    const n = this.keys.length;
    w.varuint(n);
    for (let i = 0; i < n; i++) {
      w.varuint(this.keys[i]);
      // Quantized values are int32 bits (a u32 field's too), so a zigzag varint is exact.
      w.varint(this.qs[i]);
      w.varuint(this.vers[i]);
    }
    const t = this.tombKeys.length;
    w.varuint(t);
    for (let i = 0; i < t; i++) {
      w.varuint(this.tombKeys[i]);
      w.varuint(this.tombVers[i]);
    }
  }

  /** Replaces this state with one {@link writeState} wrote. Throws `DecodeError` on a malformed one. */
  readState(r: BinaryReader): void {
    const version = r.varuint();
    const horizon = r.varuint();
    const n = r.varuint();
    if (n > this.maxKeys) throw new DecodeError("too_large", `map state of ${n} keys exceeds ${this.maxKeys}`);
    this.index.clear();
    this.keys.length = 0;
    this.qs.length = 0;
    this.vers.length = 0;
    this.seen.length = 0;
    for (let i = 0; i < n; i++) {
      const k = r.varuint();
      if (this.index.has(k)) throw new DecodeError("bad_value", `map state repeats key ${k}`);
      this.index.set(k, i);
      this.keys.push(k);
      this.qs.push(r.varint());
      this.vers.push(r.varuint());
      this.seen.push(0);
    }
    const t = r.varuint();
    // Bounded by the remaining bytes (two varuints each), so a hostile count allocates nothing.
    if (t * 2 > r.remaining) throw new DecodeError("truncated", `map state of ${t} tombstones is cut short`);
    this.tombKeys = [];
    this.tombVers = [];
    for (let i = 0; i < t; i++) {
      this.tombKeys.push(r.varuint());
      this.tombVers.push(r.varuint());
    }
    this.version = version;
    this.horizon = horizon;
  }

  /**
   * Writes what the last {@link sync} did (it changed the map, at epoch `version`) for a mirror
   * holding the state from before it: the keys removed, in the order they were, then the keys
   * set, in array order. Replayed by {@link readChange} in the order `sync` did them, the mirror
   * ends with the same arrays. Should that sync also have forgotten some of its own tombstones,
   * the removed keys are gone from here, and the state goes whole instead.
   */
  writeChangeOfLastSync(w: FrameWriter): void {
    const epoch = this.version;
    if (this.horizon >= epoch) {
      w.u8(MapStateForm.Whole);
      this.writeState(w);
      return;
    }
    w.u8(MapStateForm.Change);
    let t = this.tombVers.length;
    while (t > 0 && this.tombVers[t - 1] === epoch) t--;
    w.varuint(this.tombVers.length - t);
    for (let i = t; i < this.tombKeys.length; i++) w.varuint(this.tombKeys[i]);
    let set = 0;
    for (let i = 0; i < this.vers.length; i++) if (this.vers[i] === epoch) set++;
    w.varuint(set);
    for (let i = 0; i < this.vers.length; i++) {
      if (this.vers[i] !== epoch) continue;
      w.varuint(this.keys[i]);
      w.varint(this.qs[i]);
    }
  }

  /** Applies what {@link writeChangeOfLastSync} wrote, as a sync at `epoch` would have. */
  readChange(r: BinaryReader, epoch: number): void {
    const form = r.u8();
    if (form === MapStateForm.Whole) {
      this.readState(r);
      return;
    }
    if (form !== MapStateForm.Change) throw new DecodeError("bad_value", `map change form ${form}`);
    for (let n = r.varuint(); n > 0; n--) {
      const k = r.varuint();
      const i = this.index.get(k);
      if (i === undefined) throw new DecodeError("bad_value", `map change removes missing key ${k}`);
      this.tombKeys.push(k);
      this.tombVers.push(epoch);
      this.removeAt(i);
    }
    for (let n = r.varuint(); n > 0; n--) {
      const k = r.varuint();
      const q = r.varint();
      const i = this.index.get(k);
      if (i !== undefined) {
        this.qs[i] = q;
        this.vers[i] = epoch;
        continue;
      }
      if (this.keys.length >= this.maxKeys) throw new DecodeError("too_large", `map change exceeds ${this.maxKeys} keys`);
      this.index.set(k, this.keys.length);
      this.keys.push(k);
      this.qs.push(q);
      this.vers.push(epoch);
      this.seen.push(0);
    }
    while (this.tombKeys.length > MIN_TOMBSTONES + 2 * this.keys.length) this.forgetOldTombstones();
    this.version = epoch;
  }

  /** Writes the whole map (entity enter). */
  writeFull(w: FrameWriter): void {
    const n = this.keys.length;
    w.varuint(n);
    for (let i = 0; i < n; i++) {
      w.varuint(this.keys[i]);
      writeScalarFull(w, this.valueField, this.qs[i]);
    }
  }

  /** Writes what changed after epoch `baseVersion` (a client's baseline for this map). */
  writeChange(w: FrameWriter, baseVersion: number): void {
    // Tombstones are epoch-ordered: walk back from the newest while they are after the base.
    let firstTomb = this.tombVers.length;
    while (firstTomb > 0 && this.tombVers[firstTomb - 1] > baseVersion) firstTomb--;
    const removed = this.tombVers.length - firstTomb;
    // A reset is also cheaper (and within the decoder's bounds) once removals outnumber keys.
    if (baseVersion < this.horizon || removed > this.maxKeys) {
      writeMapChangeHeader(w, 0, true);
      this.writeFull(w);
      return;
    }
    writeMapChangeHeader(w, removed, false);
    for (let i = firstTomb; i < this.tombKeys.length; i++) w.varuint(this.tombKeys[i]);
    let set = 0;
    for (let i = 0; i < this.vers.length; i++) if (this.vers[i] > baseVersion) set++;
    w.varuint(set);
    for (let i = 0; i < this.vers.length; i++) {
      if (this.vers[i] <= baseVersion) continue;
      w.varuint(this.keys[i]);
      writeScalarFull(w, this.valueField, this.qs[i]);
    }
  }
}
