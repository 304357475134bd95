/**
 * The `agar` room (`AgarGame`, `createAgar`): cells steered around an arena, eating orbs and
 * smaller cells, each client seeing its area of interest.
 */
import { IdBuffer } from "@tikron/aoi";
import type { Game, GameContext, GameParams, InputRejection, Player, RoomOptions } from "@tikron/core";
import { SyncWorld } from "@tikron/core/sync";
import { readInput, type EntityRecord } from "@tikron/protocol";
import { Random } from "../random";
import { checkpointPlayers, readPlayerWorld, type PlayerWorldCheckpoint } from "../playerWorld";
import { displayName } from "../playerName";
import { Roster } from "../roster";
import { agarInputs, type AgarInput } from "./agarInput";
import { stepAgarCell } from "./agarMotion";
import { AGAR_RULES, canEat, grow } from "./agarRules";
import { AGAR_MAX_WORLD, agarSchema } from "./agarSchema";

type PlayerRecord = EntityRecord<(typeof agarSchema.decl)["player"]>;
type OrbRecord = EntityRecord<(typeof agarSchema.decl)["orb"]>;

interface Cell {
  readonly entity: number;
  rec: PlayerRecord;
  dx: number;
  dy: number;
  boost: boolean;
  /** Frozen while the player's socket is gone (seat held). */
  idle: boolean;
}

/** Knobs of one agar room. */
export interface AgarConfig {
  world: number;
  aoiRadius: number;
  orbs: number;
  seed: number;
}

/**
 * `agar`: players steer a cell around a bounded arena, eat orbs to grow and eat smaller cells.
 * Server-authoritative: inputs are only a steering direction (+ boost). Each client sees the
 * world within its AOI radius, as per-client binary deltas.
 */
export class AgarGame implements Game<AgarInput> {
  readonly kind = "agar";
  readonly ticking = true;
  readonly world: SyncWorld<typeof agarSchema.decl>;
  readonly sync;
  readonly config: AgarConfig;
  private readonly cells: Roster<Cell>;
  private readonly orbIds: number[] = [];
  private readonly rng: Random;
  private readonly near = new IdBuffer(64);
  private ctx: GameContext | null = null;
  /**
   * The grid's version after an eating pass in which nothing was eaten, or -1. While the grid
   * stays at it (nothing placed, moved or removed), no radius changes and the eaters stay the
   * same, the next pass would find nothing either: idle rooms skip it.
   */
  private eatQuietAt = -1;
  /** The last tick's length (NaN before the first: no room is still before it ticked). */
  private lastDtMs = NaN;
  /** Scratch for {@link still}'s trial steps. */
  private readonly trial = { x: 0, y: 0, r: 0 };

  constructor(config: Partial<AgarConfig> = {}) {
    const world = Math.min(AGAR_MAX_WORLD, config.world ?? AGAR_RULES.defaultWorld);
    this.config = { world, aoiRadius: config.aoiRadius ?? 600, orbs: config.orbs ?? 300, seed: config.seed ?? 1 };
    this.rng = new Random(this.config.seed);
    this.world = new SyncWorld(agarSchema, { tiers: [{ radius: this.config.aoiRadius, every: 1 }] });
    this.sync = { mode: "binary" as const, encoder: this.world.encoder, world: this.world };
    this.cells = new Roster(this.world);
    for (let i = 0; i < this.config.orbs; i++) {
      const rec: OrbRecord = { x: 0, y: 0, color: this.rng.int(8) };
      this.placeOrb(rec);
      // Static: an orb changes only when eaten, and `eat` tells the world then (moved).
      this.orbIds.push(this.world.spawn("orb", rec, { static: true }));
    }
  }

  init(ctx: GameContext): void {
    this.ctx = ctx;
  }

  join(player: Player): void {
    const { playerId } = player;
    const rec: PlayerRecord = { pid: playerId, x: 0, y: 0, r: AGAR_RULES.startRadius, name: displayName(player), score: 0 };
    this.placeCell(rec);
    const entity = this.world.spawn("player", rec);
    this.cells.add(playerId, { entity, rec, dx: 0, dy: 0, boost: false, idle: false });
    this.world.viewer(playerId).follow(entity);
    this.eatQuietAt = -1;
  }

  disconnected(playerId: number): void {
    this.cells.disconnected(playerId);
    this.eatQuietAt = -1;
  }

  reconnected(player: Player): void {
    this.cells.reconnected(player.playerId);
    this.eatQuietAt = -1;
  }

  leave(playerId: number): void {
    this.cells.leave(playerId);
    this.eatQuietAt = -1;
  }

  decodeInput(payload: unknown): AgarInput | InputRejection {
    return readInput(agarInputs, payload);
  }

  applyInput(playerId: number, input: AgarInput): void {
    const c = this.cells.get(playerId);
    if (!c) return;
    // Steering is a state, not an impulse: the latest input this tick wins.
    c.dx = input.dx;
    c.dy = input.dy;
    c.boost = input.boost;
  }

  /**
   * The world a restart continues from (see `Game.checkpoint`): every cell and orb with its
   * entity id, position, radius and score, as the last flush quantized them.
   */
  checkpoint(): PlayerWorldCheckpoint {
    return checkpointPlayers(this.world, this.cells.entities());
  }

  /**
   * Puts a {@link checkpoint} in place of the fresh world (before any player is seated): the
   * orbs made at construction go, the saved cells and orbs come back with their ids. Throws,
   * changing nothing, on a value it cannot use whole.
   */
  restore(state: unknown): void {
    if (this.cells.list.length > 0) throw new Error("agar restores only into a game without players");
    const saved = readPlayerWorld(agarSchema, state, "player");
    for (const id of this.orbIds) this.world.despawn(id);
    this.orbIds.length = 0;
    for (const e of saved.entities.values()) {
      if (e.type === "orb") this.orbIds.push(this.world.spawn("orb", { ...e.record }, { id: e.id, static: true }));
    }
    for (const { playerId, entity } of saved.players) {
      const rec: PlayerRecord = { ...entity.record, pid: playerId };
      this.world.spawn("player", rec, { id: entity.id });
      this.cells.add(playerId, { entity: entity.id, rec, dx: 0, dy: 0, boost: false, idle: false });
      this.world.viewer(playerId).follow(entity.id);
    }
    this.eatQuietAt = -1;
  }

  /** The record of a player's cell (tests, demo bots). */
  cellOf(playerId: number): Readonly<PlayerRecord> | undefined {
    return this.cells.get(playerId)?.rec;
  }

  /**
   * Still (see `Game.still`) when a tick without inputs would change nothing: every cell with a
   * socket steps to where it is (the same step the tick takes, tried on scratch: no steering, a
   * wall in the way, no boost burning mass) and the last eating pass found nothing with the grid
   * as it is now (nothing eaten, so no orb or cell placed anew and no randomness drawn). Orbs
   * are static and never move by themselves; there is no decay or respawn timer.
   */
  still(): boolean {
    if (this.eatQuietAt !== this.world.grid.version) return false;
    const size = this.config.world;
    const t = this.trial;
    const list = this.cells.list;
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!;
      if (c.idle) continue;
      stepAgarCell(c.rec, c, this.lastDtMs, size, t);
      if (t.x !== c.rec.x || t.y !== c.rec.y || t.r !== c.rec.r) return false;
    }
    return true;
  }

  tick(_now: number, dtMs: number): void {
    this.lastDtMs = dtMs;
    const size = this.config.world;
    const list = this.cells.list;
    for (const c of list) {
      if (c.idle) continue;
      // The cell's held steering (dx, dy, boost) is the input; the record is stepped in place.
      const r = c.rec.r;
      stepAgarCell(c.rec, c, dtMs, size, c.rec);
      // A boost with the stick at rest burns mass without moving: the grid would not see it.
      if (c.rec.r !== r) this.eatQuietAt = -1;
      this.world.moved(c.entity);
    }
    const grid = this.world.grid;
    if (this.eatQuietAt === grid.version) return;
    let ate = false;
    for (const c of list) if (!c.idle && this.eat(c)) ate = true;
    this.eatQuietAt = ate ? -1 : grid.version;
  }

  /** Cell `c` eats what it covers; true when it ate anything. */
  private eat(c: Cell): boolean {
    let ate = false;
    const rec = c.rec;
    const n = this.world.queryCircle(rec.x, rec.y, rec.r + AGAR_RULES.orbRadius, this.near);
    for (let i = 0; i < n; i++) {
      const id = this.near.ids[i]!;
      if (id === c.entity) continue;
      const orb = this.world.record(id, "orb");
      if (orb) {
        if (this.near.dist2[i]! <= rec.r * rec.r) {
          rec.r = grow(rec.r, AGAR_RULES.orbGain);
          rec.score += 1;
          this.placeOrb(orb);
          this.world.moved(id);
          this.ctx?.count("orbs_eaten");
          // A score a restart would take back: kept within KEEP_SOON_MS, not a whole checkpointMs.
          this.ctx?.keepSoon();
          ate = true;
        }
        continue;
      }
      const other = this.world.record(id, "player");
      if (other && canEat(rec.x, rec.y, rec.r, other.x, other.y, other.r)) {
        rec.r = grow(rec.r, other.r);
        rec.score += 10 + Math.round(other.r);
        other.r = AGAR_RULES.startRadius;
        this.placeCell(other);
        this.world.moved(id);
        this.ctx?.count("cells_eaten");
        this.ctx?.keepSoon();
        ate = true;
      }
    }
    return ate;
  }

  private placeOrb(rec: OrbRecord): void {
    rec.x = this.rng.range(AGAR_RULES.orbRadius, this.config.world - AGAR_RULES.orbRadius);
    rec.y = this.rng.range(AGAR_RULES.orbRadius, this.config.world - AGAR_RULES.orbRadius);
  }

  private placeCell(rec: PlayerRecord): void {
    rec.x = this.rng.range(rec.r, this.config.world - rec.r);
    rec.y = this.rng.range(rec.r, this.config.world - rec.r);
  }
}

/** Creates an agar room from room options, DEV_MODE params and the room's seed (see `GameDefinition.create`). */
export function createAgar(_options: RoomOptions, params: GameParams, seed: number): AgarGame {
  return new AgarGame({ world: params.world, aoiRadius: params.aoi, seed });
}
