import { FrameWriter, type SchemaDecl } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MirrorWorld, type SyncClient, SyncWorld, WorldFeed } from "../../src/sync/index";
import { FeedParity, agarLike, fpsLike, mixed, opArb, type Op } from "./feedParity";

const ops = fc.tuple(fc.nat(), fc.array(opArb, { minLength: 20, maxLength: 200, size: "max" }));

function parity(schema: ConstructorParameters<typeof FeedParity>[0], tiers: { radius: number; every: number }[], span: number) {
  return ([seed, list]: [number, Op[]]) => {
    const run = new FeedParity(schema, { tiers }, span);
    run.populate(seed, 40);
    for (const op of list) run.run(op);
    run.flush();
    run.checkViews();
    return run.stats;
  };
}

describe("world feed parity: a client behind a relay gets the bytes the single room sends it", () => {
  it("agar's schema", () => {
    fc.assert(fc.property(ops, (l) => void parity(agarLike, [{ radius: 150, every: 1 }, { radius: 300, every: 3 }], 900)(l)), { numRuns: 50 });
  });

  it("fps's schema (a global scoreboard of maps)", () => {
    fc.assert(fc.property(ops, (l) => void parity(fpsLike, [{ radius: 200, every: 1 }, { radius: 400, every: 2 }], 1200)(l)), { numRuns: 30 });
  });

  it("every field kind, strings and maps", () => {
    fc.assert(fc.property(ops, (l) => void parity(mixed, [{ radius: 120, every: 1 }, { radius: 260, every: 4 }], 800)(l)), { numRuns: 60 });
  });

  it("covers relays started mid-game and relays that lost an update", () => {
    // The scenarios above must actually happen in random runs, not just be possible.
    const total = { flushes: 0, frames: 0, snapshotStarts: 0, recoveries: 0 };
    fc.assert(
      fc.property(ops, (l) => {
        const s = parity(mixed, [{ radius: 120, every: 1 }, { radius: 260, every: 4 }], 800)(l);
        for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += s[k];
      }),
      { numRuns: 40, seed: 7 },
    );
    expect(total.frames).toBeGreaterThan(800);
    expect(total.snapshotStarts).toBeGreaterThan(20);
    expect(total.recoveries).toBeGreaterThan(20);
  });
});

describe("world feed", () => {
  const options = { tiers: [{ radius: 100, every: 1 }] };

  function setup() {
    const world = new SyncWorld(mixed, options);
    const feed = new WorldFeed(world);
    const mirror = new MirrorWorld(mixed, options);
    const w = new FrameWriter();
    feed.writeSnapshot(w);
    expect(mirror.apply(w.toBytes())).toBe("applied");
    const flush = (i: number) => {
      world.encoder.beginFlush(i);
      feed.writeUpdate(w.reset(), i);
      return w.toBytes();
    };
    return { world, feed, mirror, w, flush };
  }

  it("refuses an update that does not follow, and every one after it until a snapshot", () => {
    const { world, feed, mirror, w, flush } = setup();
    world.spawn("rock", { x: 1, y: 2, flags: new Map() });
    expect(mirror.apply(flush(0))).toBe("applied");
    flush(1); // lost
    world.spawn("rock", { x: 3, y: 4, flags: new Map() });
    expect(mirror.apply(flush(2))).toBe("gap");
    expect(mirror.isSynced).toBe(false);
    expect(mirror.apply(flush(3))).toBe("gap");
    feed.writeSnapshot(w.reset());
    expect(mirror.apply(w.toBytes())).toBe("applied");
    expect(mirror.lastSeq).toBe(feed.lastSeq);
    expect(mirror.serialOf(1)).toBe(world.serialOf(1));
    expect(mirror.apply(flush(4))).toBe("applied");
  });

  it("a message that does not decode throws and leaves the mirror waiting for a snapshot", () => {
    const { world, mirror, flush } = setup();
    world.spawn("ship", { x: 1, y: 2, tag: "a", buffs: new Map([[1, 2]]), lit: true, v: -3, dir: 1 });
    const update = flush(0);
    expect(() => mirror.apply(update.subarray(0, update.length - 3))).toThrow();
    expect(mirror.isSynced).toBe(false);
    expect(mirror.apply(flush(1))).toBe("gap");
  });

  it("refuses an entity id past the mirror's bound instead of allocating for it", () => {
    const { mirror, flush } = setup();
    const w = new FrameWriter();
    // An update spawning id 2^20 (a corrupted id: no world of this size is mirrored).
    w.u8(1).varuint(mirror.lastSeq + 1).varuint(0).varuint(mirror.epoch + 1);
    w.u8(1).varuint(1 << 20).varuint(0).varuint(1).u8(1).u8(0);
    w.varuint(0).varuint(0).varuint(0);
    expect(() => mirror.apply(w.toBytes())).toThrow(/past 1048576 slots/);
    expect(mirror.capacity).toBeLessThan(1 << 10);
    expect(mirror.apply(flush(0))).toBe("gap");
  });

  it("refuses a snapshot of another schema and an update written after a skipped flush", () => {
    const { world, feed, w } = setup();
    const other = new MirrorWorld(fpsLikeOrThrow(), options);
    feed.writeSnapshot(w.reset());
    expect(() => other.apply(w.toBytes())).toThrow(/schema/);
    world.encoder.beginFlush(0);
    world.encoder.beginFlush(1);
    expect(() => feed.writeUpdate(w.reset(), 1)).toThrow(/after every flush/);
  });

  it("answers a snapshot of a restarted world with reset; with fresh baselines its clients then get the room's bytes", () => {
    const { world, mirror, flush } = setup();
    const ship = (x: number) => ({ x, y: 5, tag: "s", buffs: new Map([[1, 1]]), lit: false, v: 1, dir: 0 });
    const a = world.spawn("ship", ship(1));
    world.viewer(7).follow(a);
    const old = mirror.encoder.createClient(7);
    expect(mirror.apply(flush(0))).toBe("applied");
    mirror.encoder.beginFlush(mirror.flushIndex);
    expect(mirror.encoder.encodeClient(old, new FrameWriter())).toBe(true);

    // The simulation restarts: a new world with the same entity under the same id, a new feed.
    const restarted = new SyncWorld(mixed, options);
    const b = restarted.spawn("ship", ship(1), { id: a });
    restarted.viewer(7).follow(b);
    const feed = new WorldFeed(restarted);
    const w = new FrameWriter();
    feed.writeSnapshot(w);
    // A snapshot cut short fails, and must not use up the reset its retry owes.
    expect(() => mirror.apply(w.toBytes().subarray(0, w.offset - 4))).toThrow();
    expect(mirror.apply(w.toBytes())).toBe("reset");
    mirror.encoder.releaseClient(old);
    const fresh = mirror.encoder.createClient(7);
    const twin = restarted.encoder.createClient(7);
    for (let i = 0; i < 3; i++) {
      restarted.record(b, "ship")!.x = 10 * i;
      restarted.encoder.beginFlush(i);
      feed.writeUpdate(w.reset(), i);
      expect(mirror.apply(w.toBytes())).toBe("applied");
      mirror.encoder.beginFlush(mirror.flushIndex);
      const x = new FrameWriter();
      const y = new FrameWriter();
      expect(mirror.encoder.encodeClient(fresh, y)).toBe(restarted.encoder.encodeClient(twin, x));
      expect(y.toBytes()).toEqual(x.toBytes());
    }
  });

  /** Flushes world and mirror once and expects the mirror's client to get its twin's frame. */
  function sameFrame<D extends SchemaDecl>(world: SyncWorld<D>, mirror: MirrorWorld<D>, flush: (i: number) => Uint8Array, i: number, pair: [SyncClient, SyncClient]) {
    expect(mirror.apply(flush(i))).toBe("applied");
    mirror.encoder.beginFlush(mirror.flushIndex);
    const a = new FrameWriter();
    const b = new FrameWriter();
    const sent = world.encoder.encodeClient(pair[0], a);
    expect(mirror.encoder.encodeClient(pair[1], b)).toBe(sent);
    expect(b.toBytes()).toEqual(a.toBytes());
    return sent;
  }

  const shipAt = (x: number, y: number) => ({ x, y, tag: "s", buffs: new Map(), lit: false, v: 0, dir: 0 });

  it("carries a centre the game placed under a viewer that follows a global entity (it has no position to track)", () => {
    const { world, mirror, flush } = setup();
    const board = world.spawn("board", { scores: new Map(), title: "b" });
    world.spawn("ship", shipAt(500, 500));
    world.viewer(3).follow(board);
    const pair: [SyncClient, SyncClient] = [world.encoder.createClient(3), mirror.encoder.createClient(3)];
    expect(sameFrame(world, mirror, flush, 0, pair)).toBe(true);
    // Placed somewhere, then back on the same global entity: mode, target and serial are as
    // last written, but the centre the viewer keeps while following it is new.
    world.viewer(3).fixed(500, 500).follow(board);
    expect(sameFrame(world, mirror, flush, 1, pair)).toBe(true);
    expect(mirror.viewer(3).center).toEqual(world.viewer(3).center);
  });

  it("carries a centre the game placed under a viewer whose followed entity then goes (it stays where it was placed)", () => {
    const { world, mirror, flush } = setup();
    const ship = world.spawn("ship", shipAt(0, 0));
    world.spawn("ship", shipAt(500, 500));
    world.viewer(3).follow(ship);
    const pair: [SyncClient, SyncClient] = [world.encoder.createClient(3), mirror.encoder.createClient(3)];
    expect(sameFrame(world, mirror, flush, 0, pair)).toBe(true);
    world.viewer(3).fixed(500, 500).follow(ship);
    world.despawn(ship);
    expect(sameFrame(world, mirror, flush, 1, pair)).toBe(true);
    expect(mirror.viewer(3).center).toEqual(world.viewer(3).center);
  });

  it("a simulation that encodes nobody still gives a followed viewer the centre the single room's encoder tracks", () => {
    // The single room's world and the simulation's, sharing the game's records; only the single
    // room encodes its clients, as a relayed simulation leaves that to its relays.
    const { world: sim, mirror, flush } = setup();
    const single = new SyncWorld(mixed, options);
    const ship = shipAt(0, 0);
    const board = { scores: new Map(), title: "b" };
    const rock = { x: 350, y: 0, flags: new Map() };
    for (const w of [sim, single]) {
      w.spawn("ship", ship);
      w.spawn("board", board);
      w.spawn("rock", rock);
      w.viewer(3).follow(0);
    }
    const twin = single.encoder.createClient(3);
    const client = mirror.encoder.createClient(3);
    const step = (i: number) => {
      single.encoder.beginFlush(i);
      expect(mirror.apply(flush(i))).toBe("applied");
      mirror.encoder.beginFlush(mirror.flushIndex);
      const a = new FrameWriter();
      const b = new FrameWriter();
      expect(mirror.encoder.encodeClient(client, b)).toBe(single.encoder.encodeClient(twin, a));
      expect(b.toBytes()).toEqual(a.toBytes());
    };
    step(0);
    ship.x = 300;
    step(1);
    // Onto a global entity: the centre stays where the ship was last seen (by the rock).
    for (const w of [sim, single]) w.viewer(3).follow(1);
    step(2);
    expect([...mirror.viewer(3).center]).toEqual([300, 0]);
  });

  it("writes nothing per entity for a flush in which nothing moved or changed", () => {
    const { world, flush } = setup();
    for (let i = 0; i < 50; i++) world.spawn("rock", { x: i, y: i, flags: new Map() });
    flush(0);
    expect(flush(1).length).toBeLessThan(12);
  });
});

function fpsLikeOrThrow() {
  return fpsLike;
}
