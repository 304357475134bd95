/**
 * The parity harness of the world feed: a single room's world with its clients, and a
 * simulation's world (the same records, the same operations) that encodes nobody, as a relayed
 * simulation leaves that to its relays, and relays that mirror it through the feed with clients
 * of their own. After every flush each relay client's frame must be byte for byte the frame its
 * twin in the single room got.
 */
import {
  ClientView,
  type Field,
  FieldCode,
  FrameWriter,
  type Schema,
  type SchemaDecl,
  defineSchema,
  map,
  quant,
  quantAngle,
  string,
  u8,
  varint,
  varuint,
  bool,
} from "@tikron/protocol";
import fc from "fast-check";
import { expect } from "vitest";
import { rng } from "../../bench/agarScene";
import { MirrorWorld, type SyncClient, SyncWorld, WorldFeed } from "../../src/sync/index";
import { typeNamed } from "../../src/sync/schemaLayout";

/** The agar game's entity schema (as `packages/games` declares it). */
export const agarLike = defineSchema({
  player: { pid: varuint(), x: quant(0, 16_384, 1 / 16), y: quant(0, 16_384, 1 / 16), r: quant(0, 512, 1 / 8), name: string(16), score: varuint() },
  orb: { x: quant(0, 16_384, 1 / 16), y: quant(0, 16_384, 1 / 16), color: u8() },
});

/** The fps game's entity schema (as `packages/games` declares it): a global scoreboard of maps. */
export const fpsLike = defineSchema({
  player: { pid: varuint(), x: quant(0, 4096, 1 / 16), y: quant(0, 4096, 1 / 16), angle: quantAngle(10), hp: u8(), name: string(16) },
  scoreboard: { kills: map(varuint(), 1024), deaths: map(varuint(), 1024) },
});

/** Every field kind, strings and small maps (so tombstones are forgotten and maps reset). */
export const mixed = defineSchema({
  ship: { x: quant(-1000, 1000, 1 / 8), y: quant(-1000, 1000, 1 / 8), tag: string(6), buffs: map(u8(), 6), lit: bool(), v: varint(), dir: quantAngle(8) },
  rock: { x: quant(-1000, 1000, 1 / 8), y: quant(-1000, 1000, 1 / 8), flags: map(bool(), 4) },
  board: { scores: map(varuint(), 16), title: string(10) },
});

/** One random operation; picks and seeds are reduced modulo what exists when applied. */
export type Op =
  | { k: "spawn"; type: number; seed: number; global: boolean; near?: number }
  | { k: "despawn"; pick: number }
  | { k: "move"; pick: number; dx: number; dy: number; now: boolean }
  | { k: "teleport"; pick: number; seed: number }
  | { k: "field"; pick: number; seed: number }
  | { k: "follow"; player: number; pick: number }
  | { k: "fixed"; player: number; seed: number }
  | { k: "blind"; player: number }
  | { k: "forget"; player: number }
  | { k: "join"; player: number }
  | { k: "leave"; player: number }
  | { k: "reconnect"; player: number }
  | { k: "late"; player: number; flushes: number }
  | { k: "relayStart" }
  | { k: "relayDrop" }
  | { k: "flush" };

const PLAYERS = 4;
const MAX_RELAYS = 3;
const player = fc.nat(PLAYERS - 1);

/** Random operations, weighted towards the ones that move the world. */
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ k: fc.constant("spawn" as const), type: fc.nat(), seed: fc.nat(), global: fc.boolean() }) },
  // Into the cell of an entity that may just have moved there: the order of a cell's members
  // is the grid's history, and the encoder writes enters in that order.
  { weight: 3, arbitrary: fc.record({ k: fc.constant("spawn" as const), type: fc.nat(), seed: fc.nat(), global: fc.constant(false), near: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("despawn" as const), pick: fc.nat() }) },
  { weight: 8, arbitrary: fc.record({ k: fc.constant("move" as const), pick: fc.nat(), dx: fc.double({ min: -90, max: 90, noNaN: true }), dy: fc.double({ min: -90, max: 90, noNaN: true }), now: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("teleport" as const), pick: fc.nat(), seed: fc.nat() }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant("field" as const), pick: fc.nat(), seed: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("follow" as const), player, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("fixed" as const), player, seed: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("blind" as const), player }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("forget" as const), player }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("join" as const), player }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("leave" as const), player }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("reconnect" as const), player }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("late" as const), player, flushes: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.constant({ k: "relayStart" as const }) },
  { weight: 1, arbitrary: fc.constant({ k: "relayDrop" as const }) },
  { weight: 6, arbitrary: fc.constant({ k: "flush" as const }) },
);


/** A value of `f` from `R`, sometimes out of range (the world clamps) or odd (NaN, empty). */
function valueOf(f: Field, R: () => number, span: number): unknown {
  switch (f.code) {
    case FieldCode.Quant:
      return R() < 0.05 ? f.max + 10 : f.min + R() * Math.min(span, f.max - f.min);
    case FieldCode.Angle:
      return R() * 7 - 0.5;
    case FieldCode.Bool:
      return R() < 0.5;
    case FieldCode.String: {
      const n = Math.floor(R() * (f.maxLen + 3));
      let s = "";
      for (let i = 0; i < n; i++) s += String.fromCharCode(R() < 0.8 ? 97 + Math.floor(R() * 4) : 0x3b1 + Math.floor(R() * 3));
      return s;
    }
    case FieldCode.Map: {
      const m = new Map<number, unknown>();
      const n = Math.floor(R() * (Math.min(f.maxLen, 12) + 2));
      for (let i = 0; i < n; i++) m.set(Math.floor(R() * 20), valueOf(f.value!, R, span));
      return m;
    }
    default:
      return Math.floor((R() - 0.2) * 1000);
  }
}

interface Pair {
  /** The twin in the single room: what it sends this player. */
  twin: SyncClient;
  relay: SyncClient;
  twinView: ClientView<SchemaDecl>;
  relayView: ClientView<SchemaDecl>;
}

interface Relay {
  mirror: MirrorWorld;
  /** Per player id, the client pair of this relay (single-room twin + relay client). */
  pairs: Map<number, Pair>;
  /** Drops the next update on the floor (a lost message). */
  dropNext: boolean;
}

/** What a run went through, so a test can check the scenarios it meant to cover happened. */
export interface ParityStats {
  flushes: number;
  frames: number;
  snapshotStarts: number;
  recoveries: number;
}

/** One parity run over `schema`; fails the calling test at the first frame that differs. */
export class FeedParity {
  /** The simulation's world, which only the feed reads. */
  readonly world: SyncWorld;
  /**
   * The single room's world, which encodes the twins. Apart from the simulation's, because
   * encoding moves a world's followed viewers: a simulation whose own encoder ran would hide
   * what its feed fails to carry of them.
   */
  readonly single: SyncWorld;
  private readonly feed: WorldFeed;
  private readonly relays: Relay[] = [];
  private readonly records: { id: number; rec: Record<string, unknown>; type: string }[] = [];
  private readonly joined = new Set<number>();
  /** Per player, flushes left in which it acknowledges nothing (its frames are held back). */
  private readonly lateFor = new Map<number, number>();
  private readonly w = new FrameWriter(1 << 12);
  private readonly a = new FrameWriter(1 << 12);
  private readonly b = new FrameWriter(1 << 12);
  private flushIndex = 0;
  readonly stats: ParityStats = { flushes: 0, frames: 0, snapshotStarts: 0, recoveries: 0 };

  constructor(
    private readonly schema: Schema<SchemaDecl>,
    private readonly options: { tiers: { radius: number; every: number }[] },
    /** Extent of random positions (the world's side). */
    private readonly span: number,
  ) {
    this.world = new SyncWorld(schema, options);
    this.single = new SyncWorld(schema, options);
    this.feed = new WorldFeed(this.world);
    this.startRelay();
  }

  /** Applies one op (see {@link Op}). */
  run(op: Op): void {
    const { world, single } = this;
    switch (op.k) {
      case "spawn": {
        const t = this.schema.types[op.type % this.schema.types.length];
        const R = rng(op.seed);
        const rec: Record<string, unknown> = {};
        for (const fi of t.fields) rec[fi.name] = valueOf(fi.field, R, this.span);
        const near = op.near === undefined ? undefined : this.pick(op.near);
        if (near && "x" in rec && "x" in near.rec) {
          rec.x = (near.rec.x as number) + R() * 4;
          rec.y = (near.rec.y as number) + R() * 4;
        }
        const global = op.global && R() < 0.3;
        const id = world.spawn(t.name, rec as never, { global });
        expect(single.spawn(t.name, rec as never, { global })).toBe(id);
        this.records.push({ id, rec, type: t.name });
        return;
      }
      case "despawn": {
        const e = this.pick(op.pick);
        if (!e) return;
        world.despawn(e.id);
        single.despawn(e.id);
        this.records.splice(this.records.indexOf(e), 1);
        return;
      }
      case "move": {
        const e = this.pick(op.pick);
        if (!e || !("x" in e.rec)) return;
        e.rec.x = (e.rec.x as number) + op.dx;
        e.rec.y = (e.rec.y as number) + op.dy;
        if (op.now) {
          world.moved(e.id);
          single.moved(e.id);
        }
        return;
      }
      case "teleport": {
        const e = this.pick(op.pick);
        if (!e || !("x" in e.rec)) return;
        const R = rng(op.seed);
        // Now and then somewhere no grid cell holds (a game's bug must not split the mirror).
        e.rec.x = R() < 0.1 ? NaN : R() * this.span;
        e.rec.y = R() < 0.1 ? Infinity : R() * this.span;
        return;
      }
      case "field": {
        const e = this.pick(op.pick);
        if (!e) return;
        const R = rng(op.seed);
        const fields = typeNamed(this.schema, e.type).fields;
        const fi = fields[Math.floor(R() * fields.length)];
        if (fi.field.code === FieldCode.Map && R() < 0.6) {
          // Edit the game's map in place: sets and deletes, as games do.
          const m = e.rec[fi.name] as Map<number, unknown>;
          const key = Math.floor(R() * 20);
          if (R() < 0.4) m.delete(key);
          else m.set(key, valueOf(fi.field.value!, R, this.span));
        } else if (fi.name !== "x" && fi.name !== "y") {
          e.rec[fi.name] = valueOf(fi.field, R, this.span);
        }
        return;
      }
      case "follow": {
        const e = this.pick(op.pick);
        if (!e) return;
        world.viewer(op.player).follow(e.id);
        single.viewer(op.player).follow(e.id);
        return;
      }
      case "fixed": {
        const R = rng(op.seed);
        const x = R() * this.span;
        const y = R() * this.span;
        world.viewer(op.player).fixed(x, y);
        single.viewer(op.player).fixed(x, y);
        return;
      }
      case "blind":
        world.viewer(op.player).blind();
        single.viewer(op.player).blind();
        return;
      case "forget":
        // A seat freed for good: the player's connections go with its viewer.
        this.leave(op.player);
        world.removeViewer(op.player);
        single.removeViewer(op.player);
        return;
      case "join":
        if (!this.joined.has(op.player)) this.join(op.player);
        return;
      case "leave":
        this.leave(op.player);
        return;
      case "reconnect":
        if (!this.joined.has(op.player)) return;
        this.leave(op.player);
        this.join(op.player);
        return;
      case "late":
        this.lateFor.set(op.player, op.flushes);
        return;
      case "relayStart":
        // Snapshots are taken right after an update: start with the next flush.
        if (this.relays.length < MAX_RELAYS) this.pendingStart = true;
        return;
      case "relayDrop":
        this.relays[Math.floor(this.relays.length / 2)].dropNext = true;
        return;
      case "flush":
        this.flush();
        return;
    }
  }

  private pendingStart = false;

  /** A populated world to start from: `n` entities, every player joined, most following one. */
  populate(seed: number, n: number): void {
    const R = rng(seed);
    for (let i = 0; i < n; i++) this.run({ k: "spawn", type: Math.floor(R() * 8), seed: Math.floor(R() * 1e9), global: R() < 0.1 });
    for (let pid = 0; pid < PLAYERS; pid++) {
      this.run({ k: "join", player: pid });
      if (R() < 0.8) this.run({ k: "follow", player: pid, pick: Math.floor(R() * n) });
      else this.run({ k: "fixed", player: pid, seed: Math.floor(R() * 1e9) });
    }
  }

  private pick(n: number) {
    return this.records.length === 0 ? undefined : this.records[n % this.records.length];
  }

  private join(pid: number): void {
    this.joined.add(pid);
    for (const r of this.relays) r.pairs.set(pid, this.pair(r.mirror, pid));
  }

  private pair(mirror: MirrorWorld, pid: number): Pair {
    return {
      twin: this.single.encoder.createClient(pid),
      relay: mirror.encoder.createClient(pid),
      twinView: new ClientView(this.schema),
      relayView: new ClientView(this.schema),
    };
  }

  private leave(pid: number): void {
    if (!this.joined.delete(pid)) return;
    for (const r of this.relays) {
      const p = r.pairs.get(pid)!;
      this.single.encoder.releaseClient(p.twin);
      r.mirror.encoder.releaseClient(p.relay);
      r.pairs.delete(pid);
    }
  }

  /** A relay started from a snapshot, every joined player connecting to it afresh. */
  private startRelay(): void {
    const mirror = new MirrorWorld(this.schema, this.options);
    this.w.reset();
    this.feed.writeSnapshot(this.w);
    expect(mirror.apply(this.w.toBytes())).toBe("applied");
    const relay: Relay = { mirror, pairs: new Map(), dropNext: false };
    for (const pid of this.joined) relay.pairs.set(pid, this.pair(mirror, pid));
    this.relays.push(relay);
  }

  /** One flush: the simulation quantizes and writes its update, the single room quantizes; every relay applies the update; then each pair's frames must match. */
  flush(): void {
    const idx = this.flushIndex++;
    this.world.encoder.beginFlush(idx);
    this.single.encoder.beginFlush(idx);
    this.w.reset();
    this.feed.writeUpdate(this.w, idx);
    const update = this.w.toBytes();
    const encoding: Relay[] = [];
    for (const r of this.relays) {
      if (r.dropNext) {
        r.dropNext = false;
        continue;
      }
      const result = r.mirror.apply(update);
      if (result === "gap") {
        // Missed one: the simulation answers with a snapshot, written right after its update.
        expect(r.mirror.isSynced).toBe(false);
        this.w.reset();
        this.feed.writeSnapshot(this.w);
        expect(r.mirror.apply(this.w.toBytes())).toBe("applied");
        this.stats.recoveries++;
      } else {
        expect(result).toBe("applied");
      }
      expect(r.mirror.flushIndex).toBe(idx);
      r.mirror.encoder.beginFlush(r.mirror.flushIndex);
      encoding.push(r);
    }
    // A relay that lost this update sends nothing now: its players' twins hold back too.
    const held = new Set(this.relays.filter((r) => !encoding.includes(r)));
    for (const r of this.relays) {
      for (const [pid, p] of r.pairs) {
        if ((this.lateFor.get(pid) ?? 0) > 0 || held.has(r)) continue;
        this.a.reset();
        this.b.reset();
        const sentA = this.single.encoder.encodeClient(p.twin, this.a);
        const sentB = r.mirror.encoder.encodeClient(p.relay, this.b);
        expect(sentB).toBe(sentA);
        expect(this.b.toBytes()).toEqual(this.a.toBytes());
        if (sentA) {
          expect(p.twinView.apply(this.a.toBytes())).toBeNull();
          expect(p.relayView.apply(this.b.toBytes())).toBeNull();
          this.stats.frames++;
        }
      }
    }
    for (const [pid, n] of this.lateFor) this.lateFor.set(pid, n - 1);
    this.stats.flushes++;
    if (this.pendingStart) {
      this.pendingStart = false;
      this.startRelay();
      this.stats.snapshotStarts++;
    }
  }

  /** Every client's decoded view behind a relay equals its twin's, entity by entity. */
  checkViews(): void {
    for (const r of this.relays) {
      for (const p of r.pairs.values()) {
        expect(entities(p.relayView)).toEqual(entities(p.twinView));
      }
    }
  }
}

function entities(view: ClientView<SchemaDecl>): unknown[] {
  return [...view.values()].map((e) => ({ ...e })).sort((x, y) => (x as { id: number }).id - (y as { id: number }).id);
}
