/**
 * `field`: a small binary game in which AOI and tiers matter, for the relayed room's parity
 * test. Each player steers a ship in a 1000² world and sees through two tiers (150 every
 * flush, 300 every third), following its ship; rocks spawn, drift and vanish from a seeded
 * generator every tick, so entities enter and leave views all the time.
 */
import { defineGameTypes, defineSchema, quant, reject, varuint, type BinaryWriter, type InputRejection } from "@tikron/protocol";
import type { Game, GameContext, GameDefinition, Player } from "../../src";
import { SyncWorld } from "../../src/sync";

export const fieldSchema = defineSchema({
  ship: { x: quant(0, 1000, 1 / 8), y: quant(0, 1000, 1 / 8), hp: varuint() },
  rock: { x: quant(0, 1000, 1 / 8), y: quant(0, 1000, 1 / 8) },
});

export const fieldWorldOptions = { tiers: [{ radius: 150, every: 1 }, { radius: 300, every: 3 }] };

/** A step: 0 stay, 1..4 east, west, south, north. */
export interface FieldInput {
  dir: 0 | 1 | 2 | 3 | 4;
}

export const fieldTypes = defineGameTypes<FieldInput>()({
  kind: "field",
  schema: fieldSchema,
  encodeInput: (input: FieldInput, w: BinaryWriter) => w.reset().u8(input.dir).toBytes(),
});

const STEP = 40;
const DX = [0, 1, -1, 0, 0];
const DY = [0, 0, 0, 1, -1];
const clamp = (v: number) => Math.min(1000, Math.max(0, v));

export class FieldGame implements Game<FieldInput> {
  readonly kind = "field";
  readonly ticking = true;
  readonly world = new SyncWorld(fieldSchema, fieldWorldOptions);
  readonly sync = { mode: "binary" as const, encoder: this.world.encoder, world: this.world };
  private readonly ships = new Map<number, number>();
  private readonly rocks: number[] = [];
  private seed: number;
  ctx!: GameContext<typeof fieldTypes>;

  constructor(seed: number) {
    this.seed = seed >>> 0 || 1;
    for (let i = 0; i < 30; i++) this.spawnRock();
  }

  init(ctx: GameContext<typeof fieldTypes>): void {
    this.ctx = ctx;
  }

  join({ playerId }: Player): void {
    const id = this.world.spawn("ship", { x: (playerId * 137) % 1000, y: (playerId * 311) % 1000, hp: 3 });
    this.ships.set(playerId, id);
    this.world.viewer(playerId).follow(id);
  }

  leave(playerId: number): void {
    const id = this.ships.get(playerId);
    if (id === undefined) return;
    this.world.despawn(id);
    this.world.removeViewer(playerId);
    this.ships.delete(playerId);
  }

  decodeInput(payload: unknown): FieldInput | InputRejection {
    if (!(payload instanceof Uint8Array) || payload.length !== 1 || payload[0]! > 4) return reject("bad_input", "one byte, 0-4");
    return { dir: payload[0] as FieldInput["dir"] };
  }

  applyInput(playerId: number, input: FieldInput): void {
    const id = this.ships.get(playerId);
    const rec = id === undefined ? undefined : this.world.record(id, "ship");
    if (!rec || id === undefined) return;
    rec.x = clamp(rec.x + DX[input.dir]! * STEP);
    rec.y = clamp(rec.y + DY[input.dir]! * STEP);
    rec.hp = (rec.hp + 1) % 8;
    this.world.moved(id);
  }

  tick(): void {
    for (let i = 0; i < this.rocks.length; i++) {
      const r = this.random();
      const id = this.rocks[i]!;
      if (r < 0.05) {
        this.world.despawn(id);
        this.rocks.splice(i--, 1);
      } else if (r < 0.5) {
        const rec = this.world.record(id, "rock")!;
        rec.x = clamp(rec.x + (this.random() - 0.5) * 60);
        rec.y = clamp(rec.y + (this.random() - 0.5) * 60);
        this.world.moved(id);
      }
    }
    while (this.rocks.length < 30) this.spawnRock();
  }

  private spawnRock(): void {
    this.rocks.push(this.world.spawn("rock", { x: this.random() * 1000, y: this.random() * 1000 }));
  }

  /** xorshift32: the same rocks in every room made with the same seed. */
  private random(): number {
    let s = this.seed;
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    this.seed = s >>> 0;
    return this.seed / 0x100000000;
  }
}

/** A `field` room whose game starts from `seed`. */
export function fieldDefinition(seed: number): GameDefinition {
  return { kind: "field", defaults: { tickMs: 50, syncIntervalMs: 50, cap: 16 }, create: () => new FieldGame(seed) };
}
