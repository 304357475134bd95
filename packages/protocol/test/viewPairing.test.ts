import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClientView, DecodeError, FrameWriter, defineSchema, u8, type ViewEntity } from "../src/index";

/*
 * The view's callbacks promise that adds and removes pair up (a clear removes every entity ever
 * added and not yet removed) and that changes are reported only for entities already in view.
 * These tests hold that against hostile bodies: bodies that fail half-way, and bodies the server
 * never writes (an id entering twice, or entering and changing in one body).
 */

const schema = defineSchema({ p: { hp: u8() } });

/** One body's sections, written by hand from the documented layout (deltaFormat.ts). */
interface Body {
  leaves: number[];
  enters: Array<[id: number, hp: number]>;
  updates: Array<[id: number, hp: number]>;
}

function bodyBytes(b: Body): Uint8Array {
  const w = new FrameWriter();
  w.u8((b.leaves.length ? 1 : 0) | (b.enters.length ? 2 : 0) | (b.updates.length ? 4 : 0));
  if (b.leaves.length) {
    w.varuint(b.leaves.length);
    for (const id of b.leaves) w.varuint(id);
  }
  if (b.enters.length) {
    w.varuint(b.enters.length);
    for (const [id, hp] of b.enters) w.varuint(id).varuint(0).u8(hp);
  }
  if (b.updates.length) {
    w.varuint(b.updates.length);
    for (const [id, hp] of b.updates) w.varuint(id).varuint(1).u8(hp);
  }
  return w.toBytes();
}

/**
 * A view whose callbacks keep the entities they announced (added and not yet removed), checking
 * as they go that a remove is for an announced entity, an add for an id not announced, and a
 * change for an entity announced before the body being applied.
 */
function watchedView() {
  const view = new ClientView(schema);
  const shown = new Map<number, ViewEntity>();
  let before = new Set<ViewEntity>();
  view.onRemove((e) => {
    expect(shown.get(e.id), `remove of ${e.id} that was not added`).toBe(e);
    shown.delete(e.id);
  });
  view.onAdd((e) => {
    expect(shown.has(e.id), `add of ${e.id} while ${e.id} is shown`).toBe(false);
    shown.set(e.id, e);
  });
  view.onChange("hp", (e) => expect(before.has(e), `change of ${e.id} reported in the body it entered`).toBe(true));
  return {
    view,
    shown,
    apply(bytes: Uint8Array): DecodeError | null {
      before = new Set(shown.values());
      return view.apply(bytes);
    },
    /** The view holds exactly the announced entities. */
    expectInStep(): void {
      expect(new Map([...view.values()].map((e) => [e.id, e]))).toEqual(shown);
      for (const e of view.values()) expect(shown.get(e.id)).toBe(e);
    },
  };
}

describe("ClientView callbacks against hostile bodies", () => {
  it("a clear after a body that failed half-way removes exactly the entities that were added", () => {
    const w = watchedView();
    expect(w.apply(bodyBytes({ leaves: [], enters: [[1, 10], [2, 20]], updates: [] }))).toBeNull();
    // Leaves 1 and enters 3, then fails on an update of an unknown entity.
    expect(w.apply(bodyBytes({ leaves: [1], enters: [[3, 30]], updates: [[9, 1]] }))).toBeInstanceOf(DecodeError);
    w.view.clear();
    expect([...w.shown.keys()]).toEqual([]);
  });

  it("refuses an id entering twice in one body (the server never writes it)", () => {
    const w = watchedView();
    expect(w.apply(bodyBytes({ leaves: [], enters: [[1, 10]], updates: [] }))).toBeNull();
    expect(w.apply(bodyBytes({ leaves: [], enters: [[1, 11], [1, 12]], updates: [] }))).toBeInstanceOf(DecodeError);
    w.view.clear();
    expect([...w.shown.keys()]).toEqual([]);
  });

  it("refuses an update of an entity that entered in the same body", () => {
    const w = watchedView();
    expect(w.apply(bodyBytes({ leaves: [], enters: [[1, 10]], updates: [[1, 11]] }))).toBeInstanceOf(DecodeError);
    expect(w.view.size).toBe(0);
  });

  it("still replaces an entity that enters again in a later body, or leaves and enters in one", () => {
    const w = watchedView();
    expect(w.apply(bodyBytes({ leaves: [], enters: [[1, 10]], updates: [] }))).toBeNull();
    const first = w.view.get(1);
    expect(w.apply(bodyBytes({ leaves: [], enters: [[1, 11]], updates: [] }))).toBeNull();
    expect(w.apply(bodyBytes({ leaves: [1], enters: [[1, 12]], updates: [] }))).toBeNull();
    expect(w.view.get(1)).not.toBe(first);
    expect(w.view.get(1)?.record).toEqual({ hp: 12 });
    w.expectInStep();
  });

  it("keep adds, removes and changes in step with the view over any stream of bodies, cut or whole, and clears", () => {
    const id = fc.integer({ min: 0, max: 4 });
    const hp = fc.integer({ min: 0, max: 255 });
    const body = fc.record({
      leaves: fc.array(id, { maxLength: 3 }),
      enters: fc.array(fc.tuple(id, hp), { maxLength: 3 }),
      updates: fc.array(fc.tuple(id, hp), { maxLength: 3 }),
    });
    const op = fc.oneof(
      { weight: 1, arbitrary: fc.constant("clear" as const) },
      { weight: 8, arbitrary: fc.tuple(body, fc.option(fc.nat(), { freq: 4, nil: null })) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const w = watchedView();
        let failed = false;
        for (const o of ops) {
          if (o === "clear") {
            w.view.clear();
            expect(w.shown.size).toBe(0);
            failed = false;
            continue;
          }
          const [body, cut] = o;
          const full = bodyBytes(body);
          const bytes = cut == null ? full : full.subarray(0, cut % full.length);
          const shownBefore = new Map(w.shown);
          const err = w.apply(bytes);
          if (err === null) {
            expect(failed).toBe(false);
            w.expectInStep();
          } else {
            expect(err).toBeInstanceOf(DecodeError);
            expect(err.message).not.toMatch(/^unexpected/);
            // A rejected body reports nothing.
            expect(w.shown).toEqual(shownBefore);
            failed = true;
          }
        }
        w.view.clear();
        expect(w.shown.size).toBe(0);
      }),
      { numRuns: 500 },
    );
  });
});
