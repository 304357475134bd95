import { type PriorityTier } from "@tikron/aoi";
import { FrameWriter, beginFrame, defineSchema, endFrame, FrameFlag, quant, string, u8, varuint } from "@tikron/protocol";
import { type SyncClient, SyncWorld } from "../src/sync/index";

/** The agar schema as the brief declares it (positions 1/16, radius 1/8). */
export const benchSchema = defineSchema({
  player: { x: quant(0, 8192, 1 / 16), y: quant(0, 8192, 1 / 16), r: quant(0, 2048, 1 / 8), name: string(16), score: varuint() },
  orb: { x: quant(0, 8192, 1 / 16), y: quant(0, 8192, 1 / 16), color: u8() },
});

interface PlayerRec {
  x: number;
  y: number;
  r: number;
  name: string;
  score: number;
}
interface OrbRec {
  x: number;
  y: number;
  color: number;
}

/** Deterministic PRNG (mulberry32) so every run sees the same walk. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SceneOptions {
  players: number;
  orbs: number;
  world: number;
  tiers: PriorityTier[];
  /** Units per flush (agar: 260 u/s at 20 Hz = 13). */
  speed?: number;
  seed?: number;
}

/**
 * An agar-like room driven by a random walk: players keep a heading that wanders, bounce off
 * the edges, now and then eat an orb (score and radius grow, the orb respawns elsewhere).
 */
export class AgarScene {
  readonly world: SyncWorld<typeof benchSchema.decl>;
  readonly players: PlayerRec[] = [];
  readonly playerIds: number[] = [];
  readonly orbs: OrbRec[] = [];
  readonly clients: SyncClient[] = [];
  private readonly heading: number[] = [];
  private readonly rand: () => number;
  readonly w = new FrameWriter(1 << 16);
  flushIndex = 0;

  constructor(readonly opts: SceneOptions) {
    this.rand = rng(opts.seed ?? 42);
    this.world = new SyncWorld(benchSchema, { tiers: opts.tiers });
    const R = this.rand;
    for (let i = 0; i < opts.orbs; i++) {
      const o = { x: R() * opts.world, y: R() * opts.world, color: (R() * 256) | 0 };
      this.orbs.push(o);
      this.world.spawn("orb", o);
    }
    for (let i = 0; i < opts.players; i++) {
      const p = { x: R() * opts.world, y: R() * opts.world, r: 20, name: `player-${i}`, score: 0 };
      this.players.push(p);
      this.heading.push(R() * Math.PI * 2);
      const id = this.world.spawn("player", p);
      this.playerIds.push(id);
      this.world.viewer(i).follow(id);
      this.clients.push(this.world.encoder.createClient(i));
    }
  }

  /** One tick of game simulation (not part of the measured sync cost). */
  step(): void {
    const R = this.rand;
    const size = this.opts.world;
    const speed = this.opts.speed ?? 13;
    for (let i = 0; i < this.players.length; i++) {
      const p = this.players[i];
      let h = this.heading[i] + (R() - 0.5) * 0.6;
      let x = p.x + Math.cos(h) * speed;
      let y = p.y + Math.sin(h) * speed;
      if (x < 0 || x > size || y < 0 || y > size) {
        h += Math.PI;
        x = Math.min(Math.max(x, 0), size);
        y = Math.min(Math.max(y, 0), size);
      }
      this.heading[i] = h;
      p.x = x;
      p.y = y;
      if (R() < 0.02) {
        p.score += 1;
        p.r = Math.sqrt(p.r * p.r + 16);
        const o = this.orbs[(R() * this.orbs.length) | 0];
        o.x = R() * size;
        o.y = R() * size;
      }
    }
  }

  /** The measured sync work of one flush: quantize + AOI + delta encode for every client. */
  flush(onFrame?: (client: number, bytes: number) => void): void {
    const enc = this.world.encoder;
    const w = this.w;
    enc.beginFlush(this.flushIndex);
    for (let i = 0; i < this.clients.length; i++) {
      w.reset();
      const flagsPos = beginFrame(w, 10_000 + this.flushIndex, this.flushIndex * 50);
      if (enc.encodeClient(this.clients[i], w)) {
        endFrame(w, flagsPos, FrameFlag.Delta);
        if (onFrame) onFrame(i, w.offset);
      }
    }
    this.flushIndex++;
  }

  /** Frame bytes a full snapshot of each client's visible set would take (same codec, fresh baseline). */
  fullSnapshotBytes(): number {
    const enc = this.world.encoder;
    const w = new FrameWriter(1 << 16);
    let total = 0;
    for (let i = 0; i < this.clients.length; i++) {
      const fresh = enc.createClient(i);
      w.reset();
      const flagsPos = beginFrame(w, 10_000 + this.flushIndex, this.flushIndex * 50);
      if (enc.encodeClient(fresh, w)) endFrame(w, flagsPos, FrameFlag.Delta);
      total += w.offset;
      enc.releaseClient(fresh);
    }
    return total;
  }
}
