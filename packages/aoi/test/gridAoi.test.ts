import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GridAoi, IdBuffer, NaiveAoi } from "../src/index";

interface Model {
  naive: NaiveAoi;
  /** Last position per present positioned id (to aim queries exactly at an entity's distance). */
  pos: Map<number, { x: number; y: number }>;
  globals: Set<number>;
}

interface Real {
  grid: GridAoi;
}

const MAX_ID = 40;

function sorted(buf: IdBuffer): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < buf.length; i++) out.push([buf.ids[i], buf.dist2[i]]);
  return out.sort((a, b) => a[0] - b[0]);
}

function check(model: Model, real: Real, x: number, y: number, r: number): void {
  const a = new IdBuffer(2);
  const b = new IdBuffer(2);
  model.naive.queryCircle(x, y, r, a);
  real.grid.queryCircle(x, y, r, b);
  expect(sorted(b)).toEqual(sorted(a));
}

class InsertCmd implements fc.Command<Model, Real> {
  constructor(readonly id: number, readonly x: number, readonly y: number) {}
  check(m: Readonly<Model>): boolean {
    return !m.naive.has(this.id);
  }
  run(m: Model, r: Real): void {
    m.naive.insert(this.id, this.x, this.y);
    m.pos.set(this.id, { x: this.x, y: this.y });
    r.grid.insert(this.id, this.x, this.y);
    expect(r.grid.has(this.id)).toBe(true);
  }
  toString(): string {
    return `insert(${this.id}, ${this.x}, ${this.y})`;
  }
}

class InsertGlobalCmd implements fc.Command<Model, Real> {
  constructor(readonly id: number) {}
  check(m: Readonly<Model>): boolean {
    return !m.naive.has(this.id);
  }
  run(m: Model, r: Real): void {
    m.naive.insertGlobal(this.id);
    m.globals.add(this.id);
    r.grid.insertGlobal(this.id);
  }
  toString(): string {
    return `insertGlobal(${this.id})`;
  }
}

class MoveCmd implements fc.Command<Model, Real> {
  constructor(readonly id: number, readonly x: number, readonly y: number) {}
  check(): boolean {
    return true; // moving an absent or global id must be a harmless no-op in both
  }
  run(m: Model, r: Real): void {
    m.naive.move(this.id, this.x, this.y);
    if (m.pos.has(this.id)) m.pos.set(this.id, { x: this.x, y: this.y });
    r.grid.move(this.id, this.x, this.y);
  }
  toString(): string {
    return `move(${this.id}, ${this.x}, ${this.y})`;
  }
}

class RemoveCmd implements fc.Command<Model, Real> {
  constructor(readonly id: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    m.naive.remove(this.id);
    m.pos.delete(this.id);
    m.globals.delete(this.id);
    r.grid.remove(this.id);
    expect(r.grid.has(this.id)).toBe(false);
  }
  toString(): string {
    return `remove(${this.id})`;
  }
}

class QueryCmd implements fc.Command<Model, Real> {
  constructor(readonly x: number, readonly y: number, readonly r: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    check(m, r, this.x, this.y, this.r);
  }
  toString(): string {
    return `query(${this.x}, ${this.y}, r=${this.r})`;
  }
}

/** A query whose radius is exactly the distance to entity `pick` (inclusive boundary). */
class QueryAtEntityCmd implements fc.Command<Model, Real> {
  constructor(readonly x: number, readonly y: number, readonly pick: number) {}
  check(m: Readonly<Model>): boolean {
    return m.pos.size > 0;
  }
  run(m: Model, r: Real): void {
    const ps = [...m.pos.values()];
    const p = ps[this.pick % ps.length];
    const radius = Math.sqrt((p.x - this.x) ** 2 + (p.y - this.y) ** 2);
    check(m, r, this.x, this.y, radius);
    // And the squared radius the entity itself yields, nudged either way.
    check(m, r, this.x, this.y, radius * (1 + Number.EPSILON));
    check(m, r, this.x, this.y, radius * (1 - Number.EPSILON));
  }
  toString(): string {
    return `queryAtEntity(${this.x}, ${this.y}, #${this.pick})`;
  }
}

/** Coordinates that stress the grid: cell edges, negatives, tiny and huge values. */
function coord(cell: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.double({ min: -20, max: 20, noNaN: true }).map((k) => k * cell) },
    { weight: 3, arbitrary: fc.integer({ min: -20, max: 20 }).map((k) => k * cell) },
    { weight: 1, arbitrary: fc.integer({ min: -20, max: 20 }).map((k) => k * cell - Number.MIN_VALUE) },
    { weight: 1, arbitrary: fc.integer({ min: -20, max: 20 }).map((k) => k * cell * (1 - Number.EPSILON)) },
    { weight: 1, arbitrary: fc.constantFrom(0, -0, 1e-300, -1e-300, 1e12, -1e12) },
    { weight: 1, arbitrary: fc.double({ noNaN: false }) },
  );
}

/** Radii mostly a few cells wide, so queries go through the cell lookup, not the full scan. */
function radius(cell: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.double({ min: 0, max: 3, noNaN: true }).map((k) => k * cell) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 3 }).map((k) => k * cell) },
    { weight: 1, arbitrary: fc.constantFrom(0, Infinity, -1, NaN, 1e-300) },
  );
}

/** Fills the index with many entities at once so occupied cells outnumber a query's box. */
class BulkInsertCmd implements fc.Command<Model, Real> {
  constructor(readonly points: ReadonlyArray<readonly [number, number]>) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    let id = BULK_BASE;
    for (const [x, y] of this.points) {
      while (m.naive.has(id)) id++;
      new InsertCmd(id, x, y).run(m, r);
    }
  }
  toString(): string {
    return `bulkInsert(${this.points.length})`;
  }
}

const BULK_BASE = MAX_ID + 1;

function commands(cell: number) {
  const id = fc.integer({ min: 0, max: MAX_ID });
  const anyId = fc.integer({ min: 0, max: MAX_ID + 400 });
  const near = fc.double({ min: -2 * cell, max: 2 * cell, noNaN: true });
  return fc.commands(
    [
      fc.tuple(id, coord(cell), coord(cell)).map(([i, x, y]) => new InsertCmd(i, x, y)),
      id.map((i) => new InsertGlobalCmd(i)),
      fc.array(fc.tuple(coord(cell), coord(cell)), { minLength: 20, maxLength: 120 }).map((ps) => new BulkInsertCmd(ps)),
      fc.tuple(anyId, coord(cell), coord(cell)).map(([i, x, y]) => new MoveCmd(i, x, y)),
      // Short moves: mostly within a cell, sometimes across an edge.
      fc.tuple(anyId, near, near).map(([i, dx, dy]) => new MoveCmd(i, dx, dy)),
      anyId.map((i) => new RemoveCmd(i)),
      fc.tuple(coord(cell), coord(cell), radius(cell)).map(([x, y, r]) => new QueryCmd(x, y, r)),
      fc.tuple(coord(cell), coord(cell), fc.nat()).map(([x, y, p]) => new QueryAtEntityCmd(x, y, p)),
    ],
    { maxCommands: 150, size: "large" },
  );
}

const cellSize = fc.oneof(fc.integer({ min: 1, max: 400 }), fc.double({ min: 0.25, max: 700, noNaN: true }));

describe("GridAoi", () => {
  it("returns exactly the naive filter's set over any insert/move/remove/query sequence", () => {
    fc.assert(
      fc.property(
        cellSize.chain((cell) => fc.tuple(fc.constant(cell), commands(cell))),
        ([cell, cmds]) => {
          fc.modelRun(() => ({ model: { naive: new NaiveAoi(), pos: new Map(), globals: new Set<number>() }, real: { grid: new GridAoi(cell) } }), cmds);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("includes points exactly at the radius and excludes the next double out", () => {
    const g = new GridAoi(100);
    g.insert(1, 300, 0); // on a cell edge, exactly 300 from the origin
    g.insert(2, -100, -100 * Math.sqrt(8)); // 300 away, negative quadrant
    g.insert(3, 300 + 300 * Number.EPSILON * 2, 0);
    const out = new IdBuffer();
    g.queryCircle(0, 0, 300, out);
    const n = new NaiveAoi();
    n.insert(1, 300, 0);
    n.insert(2, -100, -100 * Math.sqrt(8));
    n.insert(3, 300 + 300 * Number.EPSILON * 2, 0);
    const ref = new IdBuffer();
    n.queryCircle(0, 0, 300, ref);
    expect(out.toArray().sort()).toEqual(ref.toArray().sort());
    expect(out.toArray()).toContain(1);
    expect(out.toArray()).not.toContain(3);
  });

  it("treats non-finite positions as nowhere and keeps globals visible", () => {
    const g = new GridAoi(50);
    g.insert(1, NaN, 0);
    g.insert(2, Infinity, 0);
    g.insertGlobal(3);
    g.insert(4, 10, 10);
    const out = new IdBuffer();
    g.queryCircle(0, 0, Infinity, out);
    expect(out.toArray().sort()).toEqual([3, 4]);
    g.queryCircle(NaN, 0, 100, out);
    expect(out.toArray()).toEqual([3]);
    g.move(1, 5, 5);
    g.queryCircle(0, 0, 10, out);
    expect(out.toArray().sort()).toEqual([1, 3]);
    expect(g.size).toBe(4);
    g.remove(2);
    expect(g.size).toBe(3);
  });

  it("finds a point whose squared distance underflows to 0 across a cell edge", () => {
    // dx = 1e-200, dx*dx == 0 <= 0: the naive filter sees it at radius 0, in the next cell.
    const g = new GridAoi(1);
    const n = new NaiveAoi();
    g.insert(7, 0, 0);
    n.insert(7, 0, 0);
    const a = new IdBuffer();
    const b = new IdBuffer();
    n.queryCircle(-1e-200, 0, 0, a);
    g.queryCircle(-1e-200, 0, 0, b);
    expect(a.toArray()).toEqual([7]);
    expect(b.toArray()).toEqual([7]);
  });

  it("keeps globals consistent through removal in any order", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(50), { minLength: 1, maxLength: 20 }), fc.func(fc.integer()), (ids, order) => {
        const g = new GridAoi(10);
        for (const id of ids) g.insertGlobal(id);
        const removal = [...ids].sort((a, b) => order(a) - order(b) || a - b);
        const left = new Set(ids);
        const out = new IdBuffer();
        for (const id of removal) {
          g.remove(id);
          left.delete(id);
          g.queryCircle(0, 0, 5, out);
          expect(out.toArray().sort((a, b) => a - b)).toEqual([...left].sort((a, b) => a - b));
        }
      }),
    );
  });

  it("refuses a duplicate insert", () => {
    const g = new GridAoi(10);
    g.insert(1, 0, 0);
    expect(() => g.insert(1, 5, 5)).toThrow();
    expect(() => g.insertGlobal(1)).toThrow();
  });

  it("moves its version whenever what a query could answer changes (against a map of the entities)", () => {
    type GridOp = { k: "insert" | "move"; id: number; x: number; y: number } | { k: "global" | "remove"; id: number } | { k: "stay"; pick: number };
    const id = fc.integer({ min: 0, max: 12 });
    const at = fc.oneof(fc.integer({ min: -3, max: 3 }).map((k) => k * 50), fc.double({ min: -200, max: 200, noNaN: true }), fc.constantFrom(0, -0, NaN, Infinity));
    const op: fc.Arbitrary<GridOp> = fc.oneof(
      fc.record({ k: fc.constantFrom("insert" as const, "move" as const), id, x: at, y: at }),
      fc.record({ k: fc.constantFrom("global" as const, "remove" as const), id }),
      // A move to where an entity already is: no change, so no new version.
      fc.record({ k: fc.constant("stay" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const grid = new GridAoi(50);
        // id → [x, y] placed, or "global".
        const model = new Map<number, readonly [number, number] | "global">();
        const key = (): string =>
          [...model.entries()]
            .sort((a, b) => a[0] - b[0])
            .map(([i, p]) => (p === "global" ? `${i}:g` : `${i}:${p[0] === 0 ? 0 : p[0]},${p[1] === 0 ? 0 : p[1]}`))
            .join(" ");
        for (const o of ops) {
          const before = key();
          const version = grid.version;
          let sameSpot = false;
          if (o.k === "insert") {
            if (model.has(o.id)) continue;
            grid.insert(o.id, o.x, o.y);
            model.set(o.id, [o.x, o.y]);
          } else if (o.k === "global") {
            if (model.has(o.id)) continue;
            grid.insertGlobal(o.id);
            model.set(o.id, "global");
          } else if (o.k === "move") {
            grid.move(o.id, o.x, o.y);
            if (Array.isArray(model.get(o.id))) model.set(o.id, [o.x, o.y]);
          } else if (o.k === "remove") {
            grid.remove(o.id);
            model.delete(o.id);
          } else {
            const placed = [...model.entries()].filter((e): e is [number, readonly [number, number]] => e[1] !== "global");
            if (placed.length === 0) continue;
            const [i, p] = placed[o.pick % placed.length]!;
            grid.move(i, p[0], p[1]);
            sameSpot = !Number.isNaN(p[0]) && !Number.isNaN(p[1]);
          }
          if (key() !== before) expect(grid.version).not.toBe(version);
          if (sameSpot) expect(grid.version).toBe(version);
        }
      }),
      { numRuns: 300 },
    );
  });
});
