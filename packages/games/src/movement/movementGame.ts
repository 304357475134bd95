/**
 * The `movement` room (`MovementGame`, `createMovement`): players walking a shared square,
 * everyone seeing everyone (the fan-out worst case).
 */
import type { Game, GameParams, InputRejection, Player, RoomOptions } from "@tikron/core";
import { SyncWorld } from "@tikron/core/sync";
import { displayName } from "../playerName";
import { readInput, type EntityRecord } from "@tikron/protocol";
import { Random } from "../random";
import { checkpointPlayers, readPlayerWorld, type PlayerWorldCheckpoint } from "../playerWorld";
import { Roster } from "../roster";
import { stickScale } from "../stick";
import { movementInputs, type MovementInput } from "./movementInput";
import { MOVEMENT_RULES } from "./movementRules";
import { MOVEMENT_MAX_WORLD, movementSchema } from "./movementSchema";

type PlayerRecord = EntityRecord<(typeof movementSchema.decl)["player"]>;

interface Walker {
  readonly entity: number;
  rec: PlayerRecord;
  dx: number;
  dy: number;
  sprint: boolean;
  /** Frozen while the player's socket is gone (seat held). */
  idle: boolean;
}

/** Knobs of one movement room. */
export interface MovementConfig {
  world: number;
  seed: number;
}

/**
 * `movement`: players walk around a shared square and every client sees every player, every
 * flush. There is no AOI on purpose: this is the fan-out worst case (n players → n² entity
 * updates per flush), the room the flush throttle and the per-client encoder are measured on.
 *
 * Server-authoritative: inputs are only a steering direction (+ sprint); the tick integrates.
 */
export class MovementGame implements Game<MovementInput> {
  readonly kind = "movement";
  readonly ticking = true;
  readonly world: SyncWorld<typeof movementSchema.decl>;
  readonly sync;
  readonly config: MovementConfig;
  private readonly walkers: Roster<Walker>;
  private readonly rng: Random;
  /** The last tick's length (NaN before the first: no room is still before it ticked). */
  private lastDtMs = NaN;
  /** Scratch for {@link still}'s trial steps. */
  private readonly trial = { x: 0, y: 0 };

  constructor(config: Partial<MovementConfig> = {}) {
    this.config = {
      world: Math.min(MOVEMENT_MAX_WORLD, config.world ?? MOVEMENT_RULES.world),
      seed: config.seed ?? 1,
    };
    this.rng = new Random(this.config.seed);
    // Every player is spawned global, so viewers stay blind (no center) and still see them all;
    // the tier radius is then unused but must exist.
    this.world = new SyncWorld(movementSchema, { tiers: [{ radius: this.config.world, every: 1 }] });
    this.sync = { mode: "binary" as const, encoder: this.world.encoder };
    this.walkers = new Roster(this.world);
  }

  join(player: Player): void {
    const m = MOVEMENT_RULES.margin;
    const rec: PlayerRecord = {
      x: this.rng.range(m, this.config.world - m),
      y: this.rng.range(m, this.config.world - m),
      name: displayName(player),
    };
    const { playerId } = player;
    const entity = this.world.spawn("player", rec, { global: true });
    this.walkers.add(playerId, { entity, rec, dx: 0, dy: 0, sprint: false, idle: false });
  }

  disconnected(playerId: number): void {
    this.walkers.disconnected(playerId);
  }

  reconnected(player: Player): void {
    this.walkers.reconnected(player.playerId);
  }

  leave(playerId: number): void {
    this.walkers.leave(playerId);
  }

  decodeInput(payload: unknown): MovementInput | InputRejection {
    return readInput(movementInputs, payload);
  }

  applyInput(playerId: number, input: MovementInput): void {
    const w = this.walkers.get(playerId);
    if (!w) return;
    // Steering is a state, not an impulse: the latest input this tick wins.
    w.dx = input.dx;
    w.dy = input.dy;
    w.sprint = input.sprint;
  }

  /** The world a restart continues from (see `Game.checkpoint`): every player's position, entity ids kept. */
  checkpoint(): PlayerWorldCheckpoint {
    return checkpointPlayers(this.world, this.walkers.entities());
  }

  /** Puts a {@link checkpoint} in place of the empty world (before any player is seated). Throws on a value it cannot use. */
  restore(state: unknown): void {
    if (this.walkers.list.length > 0) throw new Error("movement restores only into a game without players");
    const saved = readPlayerWorld(movementSchema, state, "player");
    for (const { playerId, entity } of saved.players) {
      const rec: PlayerRecord = { ...entity.record };
      this.world.spawn("player", rec, { global: true, id: entity.id });
      this.walkers.add(playerId, { entity: entity.id, rec, dx: 0, dy: 0, sprint: false, idle: false });
    }
  }

  /** The record of a player (tests, demo bots). */
  playerOf(playerId: number): Readonly<PlayerRecord> | undefined {
    return this.walkers.get(playerId)?.rec;
  }

  /**
   * Still (see `Game.still`) when a tick without inputs would move nobody: every walker with a
   * socket has its stick at rest or steps to where it is (a wall in the way; the tick's own step,
   * tried on scratch). Nothing else in the room changes by itself.
   */
  still(): boolean {
    const t = this.trial;
    const list = this.walkers.list;
    for (let i = 0; i < list.length; i++) {
      const w = list[i];
      if (w.idle || (w.dx === 0 && w.dy === 0)) continue;
      this.step(w, this.lastDtMs, t);
      if (t.x !== w.rec.x || t.y !== w.rec.y) return false;
    }
    return true;
  }

  tick(_now: number, dtMs: number): void {
    this.lastDtMs = dtMs;
    const list = this.walkers.list;
    for (let i = 0; i < list.length; i++) {
      const w = list[i];
      if (w.idle || (w.dx === 0 && w.dy === 0)) continue;
      this.step(w, dtMs, w.rec);
    }
  }

  /** Walker `w`'s position after `dtMs` of its steering, written to `out` (its own record in a tick). */
  private step(w: Walker, dtMs: number, out: { x: number; y: number }): void {
    const lo = MOVEMENT_RULES.margin;
    const hi = this.config.world - MOVEMENT_RULES.margin;
    const v = MOVEMENT_RULES.speed * (w.sprint ? MOVEMENT_RULES.sprintFactor : 1) * (dtMs / 1000) * stickScale(w.dx, w.dy);
    // Both read before either is written: `out` may be the record itself.
    const x = clamp(w.rec.x + w.dx * v, lo, hi);
    const y = clamp(w.rec.y + w.dy * v, lo, hi);
    out.x = x;
    out.y = y;
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** Creates a movement room from room options, DEV_MODE params (`world`; `aoi` is ignored: no AOI here) and the room's seed. */
export function createMovement(_options: RoomOptions, params: GameParams, seed: number): MovementGame {
  return new MovementGame({ world: params.world, seed });
}
