/**
 * A reusable, growable list of entity ids with each one's squared distance from the query
 * center, filled by AOI queries. Keep one per caller and pass it to every query: it only
 * allocates when it has to grow past its largest size so far.
 */
export class IdBuffer {
  /** The ids found, in `ids[0..length)`. */
  ids: Int32Array;
  /** Squared distance from the query center (0 for global entities). */
  dist2: Float64Array;
  /** How many entries are filled. */
  length = 0;

  constructor(capacity = 64) {
    this.ids = new Int32Array(capacity);
    this.dist2 = new Float64Array(capacity);
  }

  /** Empties the buffer (keeps its storage). */
  clear(): void {
    this.length = 0;
  }

  /** Appends one id with its squared distance. */
  push(id: number, dist2: number): void {
    if (this.length === this.ids.length) this.grow();
    this.ids[this.length] = id;
    this.dist2[this.length++] = dist2;
  }

  /** Makes room for `n` entries in total (grows only past the largest size so far). */
  reserve(n: number): void {
    while (this.ids.length < n) this.grow();
  }

  /** The ids as a plain array (tests and debugging; allocates). */
  toArray(): number[] {
    return Array.from(this.ids.subarray(0, this.length));
  }

  private grow(): void {
    const ids = new Int32Array(this.ids.length * 2);
    ids.set(this.ids);
    const d = new Float64Array(this.ids.length * 2);
    d.set(this.dist2);
    this.ids = ids;
    this.dist2 = d;
  }
}
