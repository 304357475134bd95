/**
 * The two shortcuts an idle world takes, each against its naive twin on the same random
 * scenario: static entities (read at a flush only after the game said they changed) against the
 * same entities read at every flush, and the encoder's quiet skip (an empty delta known without
 * the AOI query) against a full encode of every client at every flush. Every frame must be the
 * same bytes, and the quantized worlds the same rows.
 */
import type { PriorityTier } from "@tikron/aoi";
import { FrameWriter } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type SyncClient, SyncWorld, ViewerMode } from "../../src/sync/index";
import { testSchema } from "./syncHarness";

type Op =
  | { k: "spawn"; orb: boolean; x: number; y: number; n: number; isStatic: boolean }
  | { k: "despawn"; pick: number }
  | { k: "move"; pick: number; dx: number; dy: number }
  | { k: "field"; pick: number; n: number }
  | { k: "edge"; pick: number; client: number; out: boolean }
  | { k: "follow"; client: number; pick: number }
  | { k: "fixed"; client: number; x: number; y: number }
  | { k: "blind"; client: number }
  | { k: "reconnect"; client: number }
  | { k: "flush"; times: number };

const at = fc.oneof(fc.integer({ min: -400, max: 400 }), fc.double({ min: -600, max: 600, noNaN: true }));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant("spawn" as const), orb: fc.boolean(), x: at, y: at, n: fc.integer({ min: 0, max: 1000 }), isStatic: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("despawn" as const), pick: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("move" as const), pick: fc.nat(), dx: fc.double({ min: -80, max: 80, noNaN: true }), dy: fc.double({ min: -80, max: 80, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("field" as const), pick: fc.nat(), n: fc.integer({ min: 0, max: 1000 }) }) },
  // Just inside or just outside a client's view, a hair apart: the same quantized row either
  // way, so only the grid says the client's view changed.
  { weight: 3, arbitrary: fc.record({ k: fc.constant("edge" as const), pick: fc.nat(), client: fc.nat(2), out: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("follow" as const), client: fc.nat(2), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("fixed" as const), client: fc.nat(2), x: at, y: at }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("blind" as const), client: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("reconnect" as const), client: fc.nat(2) }) },
  // Runs of flushes with nothing changed between them: where the quiet skip answers.
  { weight: 5, arbitrary: fc.record({ k: fc.constant("flush" as const), times: fc.integer({ min: 1, max: 4 }) }) },
);

/** The outermost tier's radius in every scenario: what a client sees. */
const VIEW_RADIUS = 300;

type AnyRecord = Record<string, unknown>;
interface Entity {
  id: number;
  orb: boolean;
  isStatic: boolean;
  /** The record in the world with shortcuts, and its twin's. */
  fast: AnyRecord;
  naive: AnyRecord;
}

/** One world with the shortcuts (static entities told of, quiet skips) and its naive twin, fed the same ops. */
class Twins {
  readonly fast: SyncWorld<typeof testSchema.decl>;
  readonly naive: SyncWorld<typeof testSchema.decl>;
  private readonly entities: Entity[] = [];
  private readonly clients: { fast: SyncClient; naive: SyncClient; playerId: number }[] = [];
  private flushIndex = 0;
  private readonly wf = new FrameWriter(64);
  private readonly wn = new FrameWriter(64);
  /** Client encodes that sent nothing (the quiet skip's ground), for the test's own check. */
  emptyEncodes = 0;

  constructor(tiers: readonly PriorityTier[]) {
    this.fast = new SyncWorld(testSchema, { tiers });
    this.naive = new SyncWorld(testSchema, { tiers });
    for (let i = 0; i < 3; i++) {
      const playerId = 100 + i;
      this.clients.push({ playerId, fast: this.fast.encoder.createClient(playerId), naive: this.naive.encoder.createClient(playerId) });
    }
  }

  apply(op: Op): void {
    const pick = (n: number): Entity | undefined => (this.entities.length ? this.entities[n % this.entities.length] : undefined);
    switch (op.k) {
      case "spawn": {
        const make = (): AnyRecord =>
          op.orb
            ? { x: op.x, y: op.y, color: op.n & 255, lit: op.n % 2 === 0 }
            : { x: op.x, y: op.y, r: op.n % 100, name: `p${op.n}`, score: op.n, dir: op.n / 7, buffs: new Map([[op.n & 7, op.n]]) };
        const type = op.orb ? "orb" : "player";
        const fast = make();
        const naive = make();
        const id = this.fast.spawn(type, fast as never, { static: op.isStatic });
        expect(this.naive.spawn(type, naive as never)).toBe(id);
        this.entities.push({ id, orb: op.orb, isStatic: op.isStatic, fast, naive });
        return;
      }
      case "despawn": {
        const e = pick(op.pick);
        if (!e) return;
        this.fast.despawn(e.id);
        this.naive.despawn(e.id);
        this.entities.splice(this.entities.indexOf(e), 1);
        return;
      }
      case "move": {
        const e = pick(op.pick);
        if (!e) return;
        for (const rec of [e.fast, e.naive]) {
          rec.x = (rec.x as number) + op.dx;
          rec.y = (rec.y as number) + op.dy;
        }
        // A static entity's game tells its world of every change; the others only sometimes.
        if (e.isStatic || op.pick % 2 === 0) {
          this.fast.moved(e.id);
          this.naive.moved(e.id);
        }
        return;
      }
      case "field": {
        const e = pick(op.pick);
        if (!e) return;
        for (const rec of [e.fast, e.naive]) {
          if (e.orb) rec.color = op.n & 255;
          else if (op.n % 2 === 0) rec.score = op.n;
          else rec.name = `q${op.n}`;
        }
        if (e.isStatic) this.fast.touched(e.id);
        return;
      }
      case "edge": {
        const e = pick(op.pick);
        const v = this.fast.viewer(this.clients[op.client]!.playerId);
        if (!e || v.mode !== ViewerMode.Fixed) return;
        for (const rec of [e.fast, e.naive]) {
          rec.x = v.x + VIEW_RADIUS + (op.out ? 0.01 : -0.01);
          rec.y = v.y;
        }
        this.fast.moved(e.id);
        this.naive.moved(e.id);
        return;
      }
      case "follow": {
        const e = pick(op.pick);
        if (!e) return;
        const c = this.clients[op.client]!;
        this.fast.viewer(c.playerId).follow(e.id);
        this.naive.viewer(c.playerId).follow(e.id);
        return;
      }
      case "fixed": {
        const c = this.clients[op.client]!;
        this.fast.viewer(c.playerId).fixed(op.x, op.y);
        this.naive.viewer(c.playerId).fixed(op.x, op.y);
        return;
      }
      case "blind": {
        const c = this.clients[op.client]!;
        this.fast.viewer(c.playerId).blind();
        this.naive.viewer(c.playerId).blind();
        return;
      }
      case "reconnect": {
        const c = this.clients[op.client]!;
        this.fast.encoder.releaseClient(c.fast);
        this.naive.encoder.releaseClient(c.naive);
        c.fast = this.fast.encoder.createClient(c.playerId);
        c.naive = this.naive.encoder.createClient(c.playerId);
        return;
      }
      case "flush":
        for (let i = 0; i < op.times; i++) this.flush();
        return;
    }
  }

  flush(): void {
    const index = this.flushIndex++;
    this.fast.encoder.beginFlush(index);
    this.naive.encoder.beginFlush(index);
    expect(this.fast.encoder.digest()).toBe(this.naive.encoder.digest());
    for (const c of this.clients) {
      // The twin never takes the quiet skip: every encode looks.
      c.naive.quietRows = -1;
      const sentFast = this.fast.encoder.encodeClient(c.fast, this.wf.reset());
      const sentNaive = this.naive.encoder.encodeClient(c.naive, this.wn.reset());
      expect(sentFast).toBe(sentNaive);
      expect(this.wf.peek()).toEqual(this.wn.peek());
      if (!sentFast) this.emptyEncodes++;
    }
  }
}

const tiersArb: fc.Arbitrary<PriorityTier[]> = fc.oneof(
  fc.constant([{ radius: VIEW_RADIUS, every: 1 }]),
  fc.integer({ min: 2, max: 4 }).map((every) => [
    { radius: VIEW_RADIUS / 2, every: 1 },
    { radius: VIEW_RADIUS, every },
  ]),
);

describe("an idle world's shortcuts against their naive twins", () => {
  it("static entities told of their changes, and quiet clients not looked at, send the same bytes as reading and looking every flush", () => {
    let empty = 0;
    fc.assert(
      fc.property(tiersArb, fc.array(opArb, { minLength: 1, maxLength: 150 }), (tiers, ops) => {
        const t = new Twins(tiers);
        t.apply({ k: "spawn", orb: false, x: 0, y: 0, n: 1, isStatic: false });
        for (let c = 0; c < 3; c++) t.apply({ k: "follow", client: c, pick: 0 });
        for (const op of ops) t.apply(op);
        t.apply({ k: "flush", times: 2 });
        empty += t.emptyEncodes;
      }),
      { numRuns: 200 },
    );
    // The scenarios did reach the shortcut (empty deltas are where it answers).
    expect(empty).toBeGreaterThan(100);
  }, 60_000);

  it("a static entity changed without telling the world is not read again until it is told", () => {
    const world = new SyncWorld(testSchema, { tiers: [{ radius: 300, every: 1 }] });
    const rec = { x: 10, y: 10, color: 1, lit: false };
    const id = world.spawn("orb", rec, { static: true });
    const client = world.encoder.createClient(7);
    world.viewer(7).fixed(0, 0);
    const w = new FrameWriter(64);
    world.encoder.beginFlush(0);
    expect(world.encoder.encodeClient(client, w.reset())).toBe(true);
    rec.color = 2;
    world.encoder.beginFlush(1);
    expect(world.encoder.encodeClient(client, w.reset())).toBe(false);
    world.touched(id);
    world.encoder.beginFlush(2);
    expect(world.encoder.encodeClient(client, w.reset())).toBe(true);
  });
});
