import { FrameWriter, ClientView, defineSchema, map, quant, string, u8 } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SyncWorld } from "../../src/sync/index";
import { SyncScenario, opArb } from "./syncHarness";

const ops = fc.array(opArb, { minLength: 1, maxLength: 200, size: "large" });

describe("SchemaStateEncoder", () => {
  it("reproduces each client's visible state exactly after any sequence of ops and reconnects (single tier)", () => {
    fc.assert(
      fc.property(ops, fc.integer({ min: 20, max: 400 }), (list, cell) => {
        const s = new SyncScenario([{ radius: 300, every: 1 }], cell);
        for (const op of list) s.apply(op);
        s.flush();
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it("keeps far-tier entities at most `every` flushes stale, enters/leaves immediate (tiers)", () => {
    fc.assert(
      fc.property(ops, fc.integer({ min: 2, max: 5 }), (list, every) => {
        const s = new SyncScenario([
          { radius: 150, every: 1 },
          { radius: 300, every },
        ]);
        for (const op of list) s.apply(op);
        s.flush();
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it("sends nothing to a client with nothing new, and nothing while only far entities change off-phase", () => {
    const schema = defineSchema({ dot: { x: quant(0, 1000, 1), y: quant(0, 1000, 1), c: u8() } });
    const world = new SyncWorld(schema, { tiers: [{ radius: 10, every: 1 }, { radius: 500, every: 4 }] });
    const me = world.spawn("dot", { x: 0, y: 0, c: 0 });
    const far = { x: 100, y: 0, c: 0 };
    world.spawn("dot", far);
    world.viewer(7).follow(me);
    const client = world.encoder.createClient(7);
    const view = new ClientView(schema);
    const w = new FrameWriter();
    world.encoder.beginFlush(0);
    expect(world.encoder.encodeClient(client, w)).toBe(true);
    expect(view.apply(w.toBytes())).toBeNull();
    w.reset();
    world.encoder.beginFlush(1);
    expect(world.encoder.encodeClient(client, w)).toBe(false);
    expect(w.offset).toBe(0);
    // The far dot changes every flush: exactly one frame per 4 flushes carries it.
    let sent = 0;
    for (let f = 2; f < 14; f++) {
      far.c = f;
      w.reset();
      world.encoder.beginFlush(f);
      if (world.encoder.encodeClient(client, w)) {
        sent++;
        expect(view.apply(w.toBytes())).toBeNull();
      }
    }
    expect(sent).toBe(3);
  });

  // [5, 0]: removals since a lagging client's base stay under maxKeys, but tombstones are
  // forgotten past its base (horizon reset). [12, 40]: a large steady map keeps many
  // tombstones, so removals alone exceed maxKeys (reset). [20, 0]: both.
  it.each([
    [5, 0],
    [12, 40],
    [20, 0],
  ])("brings a lagging map up to date under churn %i with %i steady keys", (churn, steady) => {
    const schema = defineSchema({ thing: { x: quant(0, 1000, 1), y: quant(0, 1000, 1), m: map(u8(), 64) } });
    const world = new SyncWorld(schema, { tiers: [{ radius: 1, every: 1 }, { radius: 500, every: 8 }] });
    world.viewer(3).fixed(0, 0);
    const m = new Map<number, number>([[1000, 1]]);
    for (let k = 0; k < steady; k++) m.set(2000 + k, k);
    world.spawn("thing", { x: 200, y: 0, m });
    const client = world.encoder.createClient(3);
    const view = new ClientView(schema);
    const w = new FrameWriter();
    let frames = 0;
    for (let f = 0; f < 96; f++) {
      for (let k = 0; k < churn; k++) m.delete((f - 1) * churn + k);
      for (let k = 0; k < churn; k++) m.set(f * churn + k, (f + k) & 255);
      if (f % 5 === 0) m.set(1000, f);
      w.reset();
      world.encoder.beginFlush(f);
      if (world.encoder.encodeClient(client, w)) {
        expect(view.apply(w.toBytes())).toBeNull();
        frames++;
        const got = view.get(0)!.record.m as Map<number, number>;
        expect(new Map([...got].sort((a, b) => a[0] - b[0]))).toEqual(new Map([...m].sort((a, b) => a[0] - b[0])));
      }
    }
    // The enter, then one refresh per 8 flushes (never more: the map is far).
    expect(frames).toBeGreaterThanOrEqual(12);
    expect(frames).toBeLessThanOrEqual(13);
  });

  it("reuses a despawned id as a new entity (leave+enter), never as an update", () => {
    const schema = defineSchema({ a: { x: quant(0, 100, 1), y: quant(0, 100, 1), s: string(4) } });
    const world = new SyncWorld(schema, { tiers: [{ radius: 1000, every: 1 }] });
    world.viewer(1).fixed(0, 0);
    const client = world.encoder.createClient(1);
    const view = new ClientView(schema);
    const w = new FrameWriter();
    const flush = (i: number) => {
      w.reset();
      world.encoder.beginFlush(i);
      if (world.encoder.encodeClient(client, w)) expect(view.apply(w.toBytes())).toBeNull();
    };
    const id = world.spawn("a", { x: 1, y: 1, s: "old" });
    flush(0);
    world.despawn(id);
    const id2 = world.spawn("a", { x: 1, y: 1, s: "new" });
    expect(id2).toBe(id);
    flush(1);
    expect(view.get(id)?.record.s).toBe("new");
    expect(view.size).toBe(1);
  });

  it("does not allocate per encode in steady state (typed-array baselines, shared scratch)", () => {
    const schema = defineSchema({ dot: { x: quant(0, 4000, 1 / 16), y: quant(0, 4000, 1 / 16), c: u8() } });
    const world = new SyncWorld(schema, { tiers: [{ radius: 300, every: 1 }, { radius: 600, every: 4 }] });
    const recs: Array<{ x: number; y: number; c: number }> = [];
    for (let i = 0; i < 300; i++) {
      const r = { x: (i * 997) % 4000, y: (i * 1663) % 4000, c: i % 7 };
      recs.push(r);
      const id = world.spawn("dot", r);
      if (i < 50) world.viewer(i).follow(id);
    }
    const clients = Array.from({ length: 50 }, (_, i) => world.encoder.createClient(i));
    const w = new FrameWriter(1 << 16);
    const run = (f: number) => {
      for (const r of recs) {
        r.x += ((f * 7 + r.c) % 5) - 2;
        r.y += ((f * 3 + r.c) % 5) - 2;
      }
      world.encoder.beginFlush(f);
      for (const c of clients) {
        w.reset();
        world.encoder.encodeClient(c, w);
      }
    };
    for (let f = 0; f < 200; f++) run(f);
    // Buffers stop growing once the largest view has been seen: their identity is stable.
    const before = clients.map((c) => c.values);
    for (let f = 200; f < 400; f++) run(f);
    expect(clients.filter((c, i) => c.values !== before[i]).length).toBeLessThanOrEqual(2);
  });
});
