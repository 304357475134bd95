const EMPTY = -1;

/**
 * Open-addressing hash table from non-negative int32 cell keys to small int32 values (linear
 * probing, backward-shift deletion, load ≤ 1/2). A lookup is a multiply, a shift and usually
 * one probe of two typed arrays, cheaper than a JS `Map` on the grid's query path.
 */
export class CellTable {
  private keys = new Int32Array(64).fill(EMPTY);
  private vals = new Int32Array(64);
  private mask = 63;
  private shift = 26;
  size = 0;

  private slotOf(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  /** The value stored for `key`, or -1. */
  get(key: number): number {
    const keys = this.keys;
    const mask = this.mask;
    let i = this.slotOf(key);
    for (;;) {
      const k = keys[i];
      if (k === key) return this.vals[i];
      if (k === EMPTY) return -1;
      i = (i + 1) & mask;
    }
  }

  /** Inserts `key` (which must be absent) with `value`. */
  add(key: number, value: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.resize(this.keys.length * 2);
    const keys = this.keys;
    let i = this.slotOf(key);
    while (keys[i] !== EMPTY) i = (i + 1) & this.mask;
    keys[i] = key;
    this.vals[i] = value;
    this.size++;
  }

  /** Removes `key` if present. */
  delete(key: number): void {
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    let i = this.slotOf(key);
    for (;;) {
      const k = keys[i];
      if (k === EMPTY) return;
      if (k === key) break;
      i = (i + 1) & mask;
    }
    // Shift later members of the probe run back so no lookup stops early at the hole.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const k = keys[j];
      if (k === EMPTY) break;
      const home = this.slotOf(k);
      const stays = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!stays) {
        keys[i] = k;
        vals[i] = vals[j];
        i = j;
      }
    }
    keys[i] = EMPTY;
    this.size--;
  }

  private resize(cap: number): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    this.keys = new Int32Array(cap).fill(EMPTY);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
    this.shift = 32 - Math.log2(cap);
    this.size = 0;
    for (let i = 0; i < oldKeys.length; i++) if (oldKeys[i] !== EMPTY) this.add(oldKeys[i], oldVals[i]);
  }
}
