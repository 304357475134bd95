import { PriorityTiers, type PriorityTier } from "@tikron/aoi";
import {
  FrameWriter,
  ClientView,
  FieldCode,
  bool,
  defineSchema,
  dequantize,
  map,
  normalizeString,
  quant,
  quantAngle,
  quantize,
  string,
  u8,
  varuint,
} from "@tikron/protocol";
import fc from "fast-check";
import { expect } from "vitest";
import { type SyncClient, SyncWorld } from "../../src/sync/index";
import { typeNamed } from "../../src/sync/schemaLayout";

/** A small game schema exercising every field kind the engine syncs. */
export const testSchema = defineSchema({
  player: {
    x: quant(-1000, 1000, 1 / 8),
    y: quant(-1000, 1000, 1 / 8),
    r: quant(0, 100, 0.5),
    name: string(8),
    score: varuint(),
    dir: quantAngle(8),
    buffs: map(u8(), 8),
  },
  orb: { x: quant(-1000, 1000, 1 / 8), y: quant(-1000, 1000, 1 / 8), color: u8(), lit: bool() },
  board: { scores: map(varuint(), 64), title: string(12) },
});

type AnyRecord = Record<string, unknown>;

/** One operation of a random scenario; picks are reduced modulo what exists when applied. */
export type Op =
  | { k: "spawn"; type: 0 | 1; x: number; y: number; n: number; s: string }
  | { k: "spawnBoard" }
  | { k: "despawn"; pick: number }
  | { k: "move"; pick: number; dx: number; dy: number }
  | { k: "teleport"; pick: number; x: number; y: number }
  | { k: "field"; pick: number; n: number; s: string }
  | { k: "mapSet"; key: number; v: number; pick: number }
  | { k: "mapDel"; key: number; pick: number }
  | { k: "follow"; client: number; pick: number }
  | { k: "fixed"; client: number; x: number; y: number }
  | { k: "blind"; client: number }
  | { k: "reconnect"; client: number }
  | { k: "flush" };

const coord = fc.oneof(fc.integer({ min: -700, max: 700 }), fc.double({ min: -1300, max: 1300, noNaN: true }));
const name = fc.string({ maxLength: 12, unit: "binary" });

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant("spawn" as const), type: fc.constantFrom(0 as const, 1 as const), x: coord, y: coord, n: fc.integer({ min: -5, max: 1e6 }), s: name }) },
  { weight: 1, arbitrary: fc.constant({ k: "spawnBoard" as const }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("despawn" as const), pick: fc.nat() }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant("move" as const), pick: fc.nat(), dx: fc.double({ min: -60, max: 60, noNaN: true }), dy: fc.double({ min: -60, max: 60, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("teleport" as const), pick: fc.nat(), x: coord, y: coord }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("field" as const), pick: fc.nat(), n: fc.integer({ min: -5, max: 1e6 }), s: name }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("mapSet" as const), key: fc.integer({ min: 0, max: 20 }), v: fc.integer({ min: 0, max: 1e6 }), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("mapDel" as const), key: fc.integer({ min: 0, max: 20 }), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("follow" as const), client: fc.nat(2), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("fixed" as const), client: fc.nat(2), x: coord, y: coord }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("blind" as const), client: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("reconnect" as const), client: fc.nat(2) }) },
  { weight: 5, arbitrary: fc.constant({ k: "flush" as const }) },
);

interface Live {
  id: number;
  type: "player" | "orb" | "board";
  rec: AnyRecord;
  serial: number;
}

interface TestClient {
  playerId: number;
  state: SyncClient;
  view: ClientView<typeof testSchema.decl>;
  /** Model of the viewer: how the test itself decides where this client looks from. */
  mode: "blind" | "fixed" | "follow";
  cx: number;
  cy: number;
  target: Live | null;
  /** (id:serial) visible at the previous flush of this connection. */
  prevVisible: Set<string>;
  entered: string[];
  left: string[];
}

/** Expected decoded record of a server record, computed from the field codecs directly. */
export function expectedRecord(type: "player" | "orb" | "board", rec: AnyRecord): AnyRecord {
  const out: AnyRecord = {};
  for (const fi of typeNamed(testSchema, type).fields) {
    const f = fi.field;
    const raw = rec[fi.name];
    if (f.code === FieldCode.String) out[fi.name] = normalizeString(f, raw);
    else if (f.code === FieldCode.Map) {
      out[fi.name] = new Map([...(raw as Map<number, number>)].map(([k, v]) => [k, dequantize(f.value!, quantize(f.value!, v))]));
    } else out[fi.name] = dequantize(f, quantize(f, raw));
  }
  return out;
}

/**
 * Runs a scenario against a real world + encoder and ClientViews, checking after every flush
 * that each client's view holds exactly the naive visible set with the right values (allowing
 * far-tier entities to lag by less than their tier's period).
 */
export class SyncScenario {
  readonly world: SyncWorld<typeof testSchema.decl>;
  readonly tiers: PriorityTiers;
  private live: Live[] = [];
  private clients: TestClient[] = [];
  private flushIndex = 0;
  private board: Live | null = null;
  private readonly w = new FrameWriter(64);
  /** Expected record (as comparable JSON) per "id:serial" over the last flushes, newest last. */
  private history = new Map<string, string[]>();
  framesSent = 0;
  framesSkipped = 0;

  /** The live entities as the test itself keeps them: id, type, the game's record. */
  get entities(): readonly { readonly id: number; readonly type: "player" | "orb" | "board"; readonly rec: AnyRecord }[] {
    return this.live;
  }

  constructor(tiers: readonly PriorityTier[], cellSize?: number) {
    this.world = new SyncWorld(testSchema, { tiers, cellSize });
    this.tiers = new PriorityTiers(tiers);
    for (let i = 0; i < 3; i++) this.clients.push(this.connect(100 + i));
    // A populated start: each client follows its own player, with orbs around.
    for (let i = 0; i < 12; i++) {
      this.apply({ k: "spawn", type: i < 3 ? 0 : 1, x: ((i * 211) % 900) - 450, y: ((i * 137) % 900) - 450, n: i, s: `p${i}` });
    }
    for (let i = 0; i < 3; i++) this.apply({ k: "follow", client: i, pick: i });
  }

  private connect(playerId: number, prev?: TestClient): TestClient {
    const c: TestClient = {
      playerId,
      state: this.world.encoder.createClient(playerId),
      view: null as unknown as ClientView<typeof testSchema.decl>,
      mode: prev?.mode ?? "blind",
      cx: prev?.cx ?? 0,
      cy: prev?.cy ?? 0,
      target: prev?.target ?? null,
      prevVisible: new Set(),
      entered: [],
      left: [],
    };
    c.view = new ClientView(testSchema);
    c.view.onAdd((e) => c.entered.push(String(e.id)));
    c.view.onRemove((e) => c.left.push(String(e.id)));
    return c;
  }

  apply(op: Op): void {
    const pick = (n: number): Live | undefined => (this.live.length ? this.live[n % this.live.length] : undefined);
    switch (op.k) {
      case "spawn": {
        const type = op.type === 0 ? "player" : "orb";
        const rec: AnyRecord =
          type === "player"
            ? { x: op.x, y: op.y, r: op.n % 120, name: op.s, score: op.n, dir: op.n / 7, buffs: new Map([[op.n & 7, op.n]]) }
            : { x: op.x, y: op.y, color: op.n, lit: op.n % 2 === 0 };
        const id = this.world.spawn(type, rec as never);
        this.live.push({ id, type, rec, serial: this.world.serialOf(id) });
        return;
      }
      case "spawnBoard": {
        if (this.board) return;
        const rec: AnyRecord = { scores: new Map<number, number>(), title: "scores" };
        const id = this.world.spawn("board", rec as never);
        this.board = { id, type: "board", rec, serial: this.world.serialOf(id) };
        this.live.push(this.board);
        return;
      }
      case "despawn": {
        const e = pick(op.pick);
        if (!e) return;
        this.world.despawn(e.id);
        this.live = this.live.filter((x) => x !== e);
        if (e === this.board) this.board = null;
        return;
      }
      case "move": {
        const e = pick(op.pick);
        if (!e || e.type === "board") return;
        e.rec.x = (e.rec.x as number) + op.dx;
        e.rec.y = (e.rec.y as number) + op.dy;
        if (op.pick % 2 === 0) this.world.moved(e.id);
        return;
      }
      case "teleport": {
        const e = pick(op.pick);
        if (!e || e.type === "board") return;
        e.rec.x = op.x;
        e.rec.y = op.y;
        return;
      }
      case "field": {
        const e = pick(op.pick);
        if (!e) return;
        if (e.type === "player") {
          if (op.n % 3 === 0) e.rec.name = op.s;
          else if (op.n % 3 === 1) e.rec.score = op.n;
          else e.rec.r = op.n % 130;
          e.rec.dir = op.n / 3;
        } else if (e.type === "orb") {
          e.rec.color = op.n;
          e.rec.lit = op.n % 2 === 1;
        } else e.rec.title = op.s;
        return;
      }
      case "mapSet":
      case "mapDel": {
        // Odd picks hit the (global) board, even ones a player's buffs (keys 0..7 fit its 8).
        const e = op.pick % 2 === 1 ? this.board : pick(op.pick >> 1);
        if (!e || e.type === "orb") return;
        const m = (e.type === "board" ? e.rec.scores : e.rec.buffs) as Map<number, number>;
        const key = e.type === "board" ? op.key : op.key & 7;
        if (op.k === "mapSet") m.set(key, op.v);
        else m.delete(key);
        return;
      }
      case "follow": {
        const e = pick(op.pick);
        const c = this.clients[op.client];
        if (!e || e.type === "board") return;
        this.world.viewer(c.playerId).follow(e.id);
        c.mode = "follow";
        c.target = e;
        return;
      }
      case "fixed": {
        const c = this.clients[op.client];
        this.world.viewer(c.playerId).fixed(op.x, op.y);
        c.mode = "fixed";
        c.cx = op.x;
        c.cy = op.y;
        c.target = null;
        return;
      }
      case "blind": {
        const c = this.clients[op.client];
        this.world.viewer(c.playerId).blind();
        c.mode = "blind";
        c.target = null;
        return;
      }
      case "reconnect": {
        const old = this.clients[op.client];
        this.world.encoder.releaseClient(old.state);
        this.clients[op.client] = this.connect(old.playerId, old);
        return;
      }
      case "flush":
        this.flush();
        return;
    }
  }

  flush(): void {
    const idx = this.flushIndex++;
    this.world.encoder.beginFlush(idx);
    for (const e of this.live) {
      const key = `${e.id}:${e.serial}`;
      const h = this.history.get(key) ?? [];
      h.push(JSON.stringify(expectedRecord(e.type, e.rec), (_, v) => (v instanceof Map ? [...v].sort((a, b) => a[0] - b[0]) : v)));
      if (h.length > 16) h.shift();
      this.history.set(key, h);
    }
    for (const c of this.clients) {
      this.w.reset();
      c.entered.length = 0;
      c.left.length = 0;
      const sent = this.world.encoder.encodeClient(c.state, this.w);
      if (sent) {
        expect(this.w.offset).toBeGreaterThan(0);
        expect(c.view.apply(this.w.toBytes())).toBeNull();
        this.framesSent++;
      } else {
        expect(this.w.offset).toBe(0);
        this.framesSkipped++;
      }
      this.check(c, idx);
    }
  }

  /** The naive visible set of a client, and each member's squared distance. */
  private naiveVisible(c: TestClient): Map<Live, number> {
    if (c.mode === "follow" && c.target) {
      if (this.live.includes(c.target)) {
        c.cx = c.target.rec.x as number;
        c.cy = c.target.rec.y as number;
      } else {
        c.mode = "fixed";
        c.target = null;
      }
    }
    const out = new Map<Live, number>();
    const R = this.tiers.radius;
    for (const e of this.live) {
      if (e.type === "board") {
        out.set(e, 0);
        continue;
      }
      if (c.mode === "blind") continue;
      const dx = (e.rec.x as number) - c.cx;
      const dy = (e.rec.y as number) - c.cy;
      const d2 = dx * dx + dy * dy;
      if (d2 <= R * R) out.set(e, d2);
    }
    return out;
  }

  private check(c: TestClient, flushIndex: number): void {
    const visible = this.naiveVisible(c);
    const viewIds = [...c.view.values()].map((e) => e.id).sort((a, b) => a - b);
    expect(viewIds).toEqual([...visible.keys()].map((e) => e.id).sort((a, b) => a - b));

    // Enters/leaves are exactly the set difference of consecutive naive results.
    const now = new Set([...visible.keys()].map((e) => `${e.id}:${e.serial}`));
    const expEnter = [...now].filter((k) => !c.prevVisible.has(k)).map((k) => k.split(":")[0]);
    const expLeave = [...c.prevVisible].filter((k) => !now.has(k)).map((k) => k.split(":")[0]);
    expect([...c.entered].sort()).toEqual(expEnter.sort());
    expect([...c.left].sort()).toEqual(expLeave.sort());
    c.prevVisible = now;

    for (const [e, d2] of visible) {
      const got = c.view.get(e.id)!;
      expect(got.type).toBe(e.type);
      const tier = this.tiers.tierOf(d2);
      const every = this.tiers.everyOf(tier);
      const due = this.tiers.isDue(tier, flushIndex, PriorityTiers.phaseFor(c.playerId));
      const want = expectedRecord(e.type, e.rec);
      if (every === 1 || due) {
        expect(got.record).toEqual(want);
        if (e.type !== "board") {
          // Within each field's quantization step of the game's raw value (in range here).
          const f = typeNamed(testSchema, e.type).fields[0].field;
          const rx = e.rec.x as number;
          if (rx >= f.min && rx <= f.max) expect(Math.abs(((got.record as AnyRecord).x as number) - rx)).toBeLessThanOrEqual(f.step / 2 + 1e-9);
        }
      } else {
        // Far and not due: it may lag, but by less than its tier's period.
        const h = this.history.get(`${e.id}:${e.serial}`)!;
        const recent = h.slice(-every);
        const gotJson = JSON.stringify(got.record, (_, v) => (v instanceof Map ? [...v].sort((a, b) => a[0] - b[0]) : v));
        expect(recent).toContain(gotJson);
      }
    }
  }
}
