import type { AoiIndex } from "./aoiIndex";
import { CellTable } from "./cellTable";
import type { IdBuffer } from "./idBuffer";

/** Cell coordinates are clamped to [-HALF, HALF): keys then stay small integers (V8 Smis). */
const HALF = 1 << 14;
const SPAN = HALF * 2;

const ABSENT = 0;
const PLACED = 1;
const GLOBAL = 2;
/** `cellOf` for a present entity at non-finite coordinates: in no cell, never visible. */
const NOWHERE = -1;

/** One occupied grid cell. Pooled: a cell emptied by a move is reused, not reallocated. */
class Cell {
  key = 0;
  /** Position in the grid's cell objects (what the key table maps to). */
  constructor(readonly index: number) {}
  /** Members live in `ids[0..count)`; the arrays never shrink, so refills do not allocate. */
  readonly ids: number[] = [];
  /** Member coordinates, alongside `ids`: a query scans them sequentially, not by id. */
  readonly xs: number[] = [];
  readonly ys: number[] = [];
  count = 0;
  /** Position in the grid's list of occupied cells. */
  listIndex = 0;
}

/**
 * Uniform spatial hash: the plane cut into square cells of side `cellSize`, each cell a list
 * of the entities inside it. Moves are incremental (work only when an entity changes cell), so
 * nothing is rebuilt per flush; a query visits only the cells overlapping the circle's
 * bounding box. A cell side of about half the usual query radius (a box of ~4×4 cells)
 * scanned fewest candidates per result in the benchmark; a cell keeps its members'
 * coordinates alongside their ids so that scan is sequential.
 *
 * Returns exactly the set {@link NaiveAoi} returns (same distance expression, same
 * inclusive comparison); the cell range is widened by a hair so float rounding at cell edges
 * can never drop a candidate.
 */
export class GridAoi implements AoiIndex {
  private state = new Uint8Array(64);
  private xs = new Float64Array(64);
  private ys = new Float64Array(64);
  private cellOf: Cell[] = [];
  private slot = new Int32Array(64);

  private readonly cells = new CellTable();
  /** Every Cell ever made, by index; freed ones wait in `pool`. */
  private readonly cellObjs: Cell[] = [];
  private readonly occupied: Cell[] = [];
  private readonly pool: Cell[] = [];
  private readonly globals: number[] = [];
  private globalCount = 0;
  private nowhereCount = 0;
  private changes = 0;

  /** @param cellSize Side of a grid cell in world units (about half the usual query radius). */
  constructor(readonly cellSize: number) {
    if (!(cellSize > 0) || !Number.isFinite(cellSize)) throw new RangeError(`cellSize must be a positive finite number, got ${cellSize}`);
  }

  /** Number of entities (placed, nowhere and global). */
  get size(): number {
    let n = this.globalCount;
    for (const c of this.occupied) n += c.count;
    return n + this.nowhereCount;
  }

  /**
   * Counts the changes a query could see: every insert and remove, and every move to another
   * position (a move to where the entity already is does not count). Two queries with the same
   * arguments at the same version answer the same, so a caller can keep an answer until it moves.
   */
  get version(): number {
    return this.changes;
  }

  /** True when `id` is in the index. */
  has(id: number): boolean {
    return id < this.state.length && this.state[id] !== ABSENT;
  }

  insert(id: number, x: number, y: number): void {
    this.claim(id, PLACED);
    this.xs[id] = x;
    this.ys[id] = y;
    const key = this.keyOf(x, y);
    if (key < 0) {
      this.slot[id] = NOWHERE;
      this.nowhereCount++;
    } else {
      this.enter(id, key);
    }
  }

  insertGlobal(id: number): void {
    this.claim(id, GLOBAL);
    this.slot[id] = this.globalCount;
    this.globals[this.globalCount++] = id;
  }

  move(id: number, x: number, y: number): void {
    if (id >= this.state.length || this.state[id] !== PLACED) return;
    // NaN never equals itself: a move at a non-finite position always counts.
    if (this.xs[id] === x && this.ys[id] === y) return;
    this.changes++;
    this.xs[id] = x;
    this.ys[id] = y;
    const key = this.keyOf(x, y);
    const inCell = this.slot[id] !== NOWHERE;
    if (inCell && this.cellOf[id].key === key) {
      const cell = this.cellOf[id];
      cell.xs[this.slot[id]] = x;
      cell.ys[this.slot[id]] = y;
      return;
    }
    if (inCell) this.leave(id);
    else this.nowhereCount--;
    if (key < 0) {
      this.slot[id] = NOWHERE;
      this.nowhereCount++;
    } else {
      this.enter(id, key);
    }
  }

  remove(id: number): void {
    if (id >= this.state.length) return;
    const s = this.state[id];
    if (s === ABSENT) return;
    this.changes++;
    if (s === GLOBAL) {
      const i = this.slot[id];
      const last = this.globals[--this.globalCount];
      this.globals[i] = last;
      this.slot[last] = i;
    } else if (this.slot[id] === NOWHERE) {
      this.nowhereCount--;
    } else {
      this.leave(id);
    }
    this.state[id] = ABSENT;
  }

  queryGlobals(out: IdBuffer): number {
    out.clear();
    for (let i = 0; i < this.globalCount; i++) out.push(this.globals[i], 0);
    return out.length;
  }

  /** Query center and radius, parked here so the large query body takes no double arguments. */
  private readonly query = new Float64Array(3);

  queryCircle(x: number, y: number, radius: number, out: IdBuffer): number {
    // Small enough to be inlined by the caller's optimizing compiler; passing doubles straight
    // into the big body below would box them (a heap allocation per call).
    const q = this.query;
    q[0] = x;
    q[1] = y;
    q[2] = radius;
    return this.queryParked(out);
  }

  private queryParked(out: IdBuffer): number {
    const x = this.query[0];
    const y = this.query[1];
    const radius = this.query[2];
    this.queryGlobals(out);
    if (!(radius >= 0) || !Number.isFinite(x) || !Number.isFinite(y)) return out.length;
    const r2 = radius * radius;
    const cs = this.cellSize;
    // Slack against rounding in the subtraction/division (relative) and against squared
    // distances that underflow to 0 (absolute); it only ever adds a cell row, never drops one.
    const slack = (Math.abs(x) + Math.abs(y) + radius) * 1e-9 + cs * 1e-6 + 1e-150;
    const cx0 = clampCoord(Math.floor((x - radius - slack) / cs));
    const cx1 = clampCoord(Math.floor((x + radius + slack) / cs));
    const cy0 = clampCoord(Math.floor((y - radius - slack) / cs));
    const cy1 = clampCoord(Math.floor((y + radius + slack) / cs));
    if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > this.occupied.length) {
      // Box wider than the occupied area: scan occupied cells instead of empty coordinates.
      for (let c = 0; c < this.occupied.length; c++) {
        scanCell(this.occupied[c], x, y, r2, out);
      }
      return out.length;
    }
    for (let cx = cx0; cx <= cx1; cx++) {
      const row = (cx + HALF) * SPAN + HALF;
      for (let cy = cy0; cy <= cy1; cy++) {
        const ci = this.cells.get(row + cy);
        if (ci < 0) continue;
        scanCell(this.cellObjs[ci], x, y, r2, out);
      }
    }
    return out.length;
  }

  /** Cell key of a position, or -1 when a coordinate is not finite. */
  private keyOf(x: number, y: number): number {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return -1;
    const cx = clampCoord(Math.floor(x / this.cellSize));
    const cy = clampCoord(Math.floor(y / this.cellSize));
    return (cx + HALF) * SPAN + (cy + HALF);
  }

  private claim(id: number, s: number): void {
    if (!Number.isInteger(id) || id < 0 || id > 0x3fffffff) throw new RangeError(`bad entity id ${id}`);
    if (id >= this.state.length) this.growTo(id + 1);
    if (this.state[id] !== ABSENT) throw new Error(`entity ${id} is already in the index`);
    this.state[id] = s;
    this.changes++;
  }

  private enter(id: number, key: number): void {
    const ci = this.cells.get(key);
    let cell: Cell;
    if (ci >= 0) {
      cell = this.cellObjs[ci];
    } else {
      cell = this.pool.pop() ?? this.newCell();
      cell.key = key;
      cell.count = 0;
      cell.listIndex = this.occupied.length;
      this.occupied.push(cell);
      this.cells.add(key, cell.index);
    }
    this.cellOf[id] = cell;
    this.slot[id] = cell.count;
    cell.xs[cell.count] = this.xs[id];
    cell.ys[cell.count] = this.ys[id];
    cell.ids[cell.count++] = id;
  }

  private newCell(): Cell {
    const cell = new Cell(this.cellObjs.length);
    this.cellObjs.push(cell);
    return cell;
  }

  private leave(id: number): void {
    const cell = this.cellOf[id];
    const i = this.slot[id];
    const n = --cell.count;
    const last = cell.ids[n];
    cell.ids[i] = last;
    cell.xs[i] = cell.xs[n];
    cell.ys[i] = cell.ys[n];
    this.slot[last] = i;
    if (cell.count === 0) {
      this.cells.delete(cell.key);
      const tail = this.occupied.pop()!;
      if (tail !== cell) {
        this.occupied[cell.listIndex] = tail;
        tail.listIndex = cell.listIndex;
      }
      this.pool.push(cell);
    }
  }

  private growTo(n: number): void {
    let cap = this.state.length;
    while (cap < n) cap *= 2;
    const state = new Uint8Array(cap);
    state.set(this.state);
    const xs = new Float64Array(cap);
    xs.set(this.xs);
    const ys = new Float64Array(cap);
    ys.set(this.ys);
    const slot = new Int32Array(cap);
    slot.set(this.slot);
    this.state = state;
    this.xs = xs;
    this.ys = ys;
    this.slot = slot;
  }

  /**
   * Copies a placed entity's last known position into `out[offset]`, `out[offset + 1]`
   * (what queries measure from). Writing into a typed array keeps hot callers free of boxed
   * doubles. Returns false (and writes nothing) unless the entity is placed.
   */
  copyPosition(id: number, out: Float64Array, offset = 0): boolean {
    if (id < 0 || id >= this.state.length || this.state[id] !== PLACED) return false;
    out[offset] = this.xs[id];
    out[offset + 1] = this.ys[id];
    return true;
  }
}

function clampCoord(c: number): number {
  // `!(c >= ...)` also catches NaN, which cannot occur for finite inputs but must not leak.
  if (!(c >= -HALF)) return -HALF;
  return c >= HALF ? HALF - 1 : c;
}

/** Appends the members of one cell within √r2 of (x, y), with their squared distances. */
function scanCell(cell: Cell, x: number, y: number, r2: number, out: IdBuffer): void {
  const count = cell.count;
  out.reserve(out.length + count);
  const oids = out.ids;
  const od2 = out.dist2;
  let n = out.length;
  const cids = cell.ids;
  const cxs = cell.xs;
  const cys = cell.ys;
  for (let i = 0; i < count; i++) {
    const dx = cxs[i] - x;
    const dy = cys[i] - y;
    const d2 = dx * dx + dy * dy;
    if (d2 <= r2) {
      oids[n] = cids[i];
      od2[n++] = d2;
    }
  }
  out.length = n;
}
