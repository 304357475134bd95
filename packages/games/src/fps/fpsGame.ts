/**
 * The `fps` room (`FpsGame`, `createFps`): a top-down hitscan shooter with lag-compensated shots,
 * a move budget against speed hacks and a synced scoreboard.
 */
import { TokenBucket, detachedContext, reject, type Game, type GameContext, type GameParams, type InputRejection, type Player, type RoomOptions } from "@tikron/core";
import { SyncWorld } from "@tikron/core/sync";
import { displayName } from "../playerName";
import { readInput, type EntityRecord } from "@tikron/protocol";
import type { fpsTypes } from "../clientTypes";
import { checkpointPlayers, readPlayerWorld, type PlayerWorldCheckpoint } from "../playerWorld";
import { Random } from "../random";
import { stickScale } from "../stick";
import { fpsInputs, type FpsInput, type FpsMove, type FpsShot } from "./fpsInput";
import { clampToArena, shooterStepLength, stepShooter } from "./fpsMotion";
import { FPS_PRESETS } from "./fpsPresets";
import { FPS_RULES } from "./fpsRules";
import { FPS_MAX_WORLD, fpsSchema, type FpsKillEvent, type FpsTracerEvent } from "./fpsSchema";
import { rayCircle, rayExitSquare, segmentPointDist2 } from "./hitscan";
import { LagHistory, type HistoryPoint } from "./lagHistory";
import { MoveBudget } from "./moveBudget";

type PlayerRecord = EntityRecord<(typeof fpsSchema.decl)["player"]>;
type ScoreboardRecord = EntityRecord<(typeof fpsSchema.decl)["scoreboard"]>;

interface Shooter {
  playerId: number;
  /** Dense index into the lag history. */
  slot: number;
  entity: number;
  rec: PlayerRecord;
  budget: MoveBudget;
  fire: TokenBucket;
  /** Room clock time of the pending respawn; meaningful while hp is 0. */
  respawnAt: number;
  kills: number;
  deaths: number;
}

/** Where a player (re)spawns; the default is uniform over the arena. */
export type SpawnPoint = (playerId: number, rng: Random, world: number) => { x: number; y: number };

/** Knobs of one fps room. */
export interface FpsConfig {
  /** World edge (≤ {@link FPS_MAX_WORLD}). */
  world: number;
  /** AOI radius; the near tier (every flush) is half of it, the far ring refreshes every 4th flush. */
  aoiRadius: number;
  /** Tick length, to size the lag history to the rewind cap. */
  tickMs: number;
  /** Expected seats, to size the lag history up front (it grows past this if needed). */
  slots: number;
  seed: number;
  spawnPoint?: SpawnPoint;
}

const NO_CONTEXT: GameContext<typeof fpsTypes> = detachedContext();

const uniformSpawn: SpawnPoint = (_playerId, rng, world) => {
  const r = FPS_RULES.playerRadius;
  return { x: rng.range(r, world - r), y: rng.range(r, world - r) };
};

/**
 * `fps`: a top-down 2D hitscan shooter, server-authoritative.
 *
 * - Moves are client steps (stick direction + step duration + aim). The server applies them in
 *   order with its own speed and bounds, after charging their distance to the player's
 *   {@link MoveBudget} (speed hacks are refused with `speed_violation`).
 * - Shots carry the room time of the world the shooter saw. They fire from the shooter's
 *   position after its earlier moves (its own timeline) at targets rewound in the
 *   {@link LagHistory} to that time, at most {@link FPS_RULES.rewindCapMs} back. A hit costs
 *   {@link FPS_RULES.damage} hp; at 0 the victim dies, the scoreboard counts, and it respawns
 *   after {@link FPS_RULES.respawnMs}.
 * - State: players and a global scoreboard via a {@link SyncWorld} with two priority tiers.
 *   Tracers are events sent only to the clients whose AOI circle the shot's segment touches.
 */
export class FpsGame implements Game<FpsInput> {
  readonly kind = "fps";
  readonly ticking = true;
  readonly world: SyncWorld<typeof fpsSchema.decl>;
  readonly sync;
  readonly config: FpsConfig;
  /** The synced scoreboard (kills and deaths by player id). */
  readonly scoreboard: ScoreboardRecord = { kills: new Map(), deaths: new Map() };
  private readonly shooters = new Map<number, Shooter>();
  /** Dense list for the tick and shot loops. */
  private shooterList: Shooter[] = [];
  private readonly bySlot: (Shooter | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private readonly history: LagHistory;
  private readonly rng: Random;
  private readonly spawnPoint: SpawnPoint;
  /** Scratch: reused by every shot (emit encodes the event and reads the ids at once). */
  private readonly audience: number[] = [];
  private readonly tracer: FpsTracerEvent = { kind: "tracer", shooter: 0, hit: 0, x0: 0, y0: 0, x1: 0, y1: 0 };
  private readonly killed: FpsKillEvent = { kind: "kill", killer: 0, victim: 0 };
  private readonly point: HistoryPoint = { x: 0, y: 0 };
  private ctx: GameContext<typeof fpsTypes> = NO_CONTEXT;
  /** The scoreboard's entity id. */
  private scoreboardEntity: number;

  constructor(config: Partial<FpsConfig> = {}) {
    const world = Math.min(FPS_MAX_WORLD, config.world ?? FPS_RULES.world);
    this.config = {
      world,
      aoiRadius: config.aoiRadius ?? FPS_RULES.aoi,
      tickMs: config.tickMs ?? FPS_PRESETS.hz30.tickMs,
      slots: config.slots ?? 100,
      seed: config.seed ?? 1,
      spawnPoint: config.spawnPoint,
    };
    this.rng = new Random(this.config.seed);
    this.spawnPoint = config.spawnPoint ?? uniformSpawn;
    const aoi = this.config.aoiRadius;
    this.world = new SyncWorld(fpsSchema, {
      tiers: [
        { radius: aoi / 2, every: 1 },
        { radius: aoi, every: 4 },
      ],
    });
    this.sync = { mode: "binary" as const, encoder: this.world.encoder };
    this.history = new LagHistory(LagHistory.framesFor(FPS_RULES.rewindCapMs, this.config.tickMs), this.config.slots);
    this.scoreboardEntity = this.world.spawn("scoreboard", this.scoreboard);
  }

  init(ctx: GameContext<typeof fpsTypes>): void {
    this.ctx = ctx;
  }

  join(player: Player): void {
    const { playerId } = player;
    const at = this.spawnPoint(playerId, this.rng, this.config.world);
    const rec: PlayerRecord = { pid: playerId, x: at.x, y: at.y, angle: 0, hp: FPS_RULES.maxHp, name: displayName(player) };
    this.clampToArena(rec);
    this.seat(playerId, rec, this.world.spawn("player", rec), 0, 0);
  }

  /**
   * The world a restart continues from (see `Game.checkpoint`): every player's position, facing
   * and hp, and the scoreboard (its kills and deaths), entity ids kept.
   */
  checkpoint(): PlayerWorldCheckpoint {
    const players: [number, number][] = [];
    for (const s of this.shooterList) players.push([s.playerId, s.entity]);
    return checkpointPlayers(this.world, players);
  }

  /**
   * Puts a {@link checkpoint} in place of the fresh world (before any player is seated). Move
   * budgets, fire rates and the lag history start afresh; a player saved dead respawns after
   * the usual wait. Throws, changing nothing, on a value it cannot use whole.
   */
  restore(state: unknown): void {
    if (this.shooterList.length > 0) throw new Error("fps restores only into a game without players");
    const saved = readPlayerWorld(fpsSchema, state, "player");
    const board = [...saved.entities.values()].find((e) => e.type === "scoreboard");
    if (board?.type !== "scoreboard") throw new Error("fps checkpoint without a scoreboard");
    this.world.despawn(this.scoreboardEntity);
    this.scoreboardEntity = this.world.spawn("scoreboard", this.scoreboard, { id: board.id });
    for (const { playerId, entity } of saved.players) {
      const rec: PlayerRecord = { ...entity.record, pid: playerId };
      const kills = board.record.kills.get(playerId) ?? 0;
      const deaths = board.record.deaths.get(playerId) ?? 0;
      this.seat(playerId, rec, this.world.spawn("player", rec, { id: entity.id }), kills, deaths);
      if (rec.hp === 0) this.shooters.get(playerId)!.respawnAt = this.ctx.now() + FPS_RULES.respawnMs;
    }
  }

  /** Seats a player on its spawned entity: a lag-history slot, a move budget, a fire rate, its scores. */
  private seat(playerId: number, rec: PlayerRecord, entity: number, kills: number, deaths: number): void {
    const slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.bySlot.length;
    // A reused slot's past was cleared when its previous player left.
    this.history.ensureSlots(slot + 1);
    const now = this.ctx.now();
    const s: Shooter = {
      playerId,
      slot,
      entity,
      rec,
      budget: new MoveBudget(FPS_RULES.moveSpeed, (FPS_RULES.moveSpeed * FPS_RULES.budgetBurstMs) / 1000, now, FPS_RULES.budgetSlack),
      fire: new TokenBucket(FPS_RULES.fireRatePerSec, FPS_RULES.fireBurst, now),
      respawnAt: 0,
      kills,
      deaths,
    };
    this.bySlot[slot] = s;
    this.shooters.set(playerId, s);
    this.shooterList.push(s);
    this.scoreboard.kills.set(playerId, kills);
    this.scoreboard.deaths.set(playerId, deaths);
    this.world.viewer(playerId).follow(entity);
  }

  leave(playerId: number): void {
    const s = this.shooters.get(playerId);
    if (!s) return;
    this.world.despawn(s.entity);
    this.world.removeViewer(playerId);
    this.history.clearSlot(s.slot);
    this.bySlot[s.slot] = undefined;
    this.freeSlots.push(s.slot);
    this.shooters.delete(playerId);
    this.shooterList = this.shooterList.filter((x) => x !== s);
    this.scoreboard.kills.delete(playerId);
    this.scoreboard.deaths.delete(playerId);
  }

  decodeInput(payload: unknown): FpsInput | InputRejection {
    return readInput(fpsInputs, payload);
  }

  applyInput(playerId: number, input: FpsInput, receivedAt: number): void | InputRejection {
    const s = this.shooters.get(playerId);
    if (!s) return;
    return input.kind === "move" ? this.move(s, input, receivedAt) : this.shoot(s, input, receivedAt);
  }

  tick(now: number): void {
    const list = this.shooterList;
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      if (s.rec.hp === 0 && now >= s.respawnAt) this.respawn(s);
    }
    // Snapshot after respawns, so the frame holds exactly what this tick's flush shows.
    const h = this.history;
    h.beginFrame(now);
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      if (s.rec.hp > 0) h.put(s.slot, s.rec.x, s.rec.y);
    }
  }

  /** A player's synced record (tests, bots, demo). */
  playerOf(playerId: number): Readonly<PlayerRecord> | undefined {
    return this.shooters.get(playerId)?.rec;
  }

  private move(s: Shooter, m: FpsMove, receivedAt: number): void | InputRejection {
    // A dead player's stick does nothing, and costs nothing either.
    if (s.rec.hp === 0) return;
    // The stick's length as the step moves it: at most 1.
    const distance = Math.hypot(m.dx, m.dy) * stickScale(m.dx, m.dy) * shooterStepLength(m.dtMs);
    if (!s.budget.take(distance, receivedAt)) {
      return reject("speed_violation", `move of ${distance.toFixed(1)} units exceeds the speed budget (${s.budget.available(receivedAt).toFixed(1)} left)`);
    }
    stepShooter(s.rec, m, m.dtMs, this.config.world, s.rec);
    s.rec.angle = m.aim;
  }

  private shoot(s: Shooter, shot: FpsShot, receivedAt: number): void | InputRejection {
    // Firing in the instant of one's own death is a race, not a client error: drop it quietly.
    if (s.rec.hp === 0) return;
    if (!s.fire.take(receivedAt)) return reject("illegal_move", `firing faster than ${FPS_RULES.fireRatePerSec} shots/s`);
    const now = this.ctx.now();
    // The shot's time is room time as the client read it from its frames: the game's own clock.
    let t = shot.time;
    if (t > now) t = now;
    else if (t < now - FPS_RULES.rewindCapMs) t = now - FPS_RULES.rewindCapMs;

    const ox = s.rec.x;
    const oy = s.rec.y;
    const dx = Math.cos(shot.aim);
    const dy = Math.sin(shot.aim);
    s.rec.angle = shot.aim;
    let best = Math.min(FPS_RULES.range, rayExitSquare(ox, oy, dx, dy, 0, this.config.world));
    let victim: Shooter | undefined;
    const p = this.point;
    const list = this.shooterList;
    for (let i = 0; i < list.length; i++) {
      const o = list[i];
      if (o === s) continue;
      if (!this.history.sample(o.slot, t, now, o.rec.x, o.rec.y, o.rec.hp > 0, p)) continue;
      const d = rayCircle(ox, oy, dx, dy, p.x, p.y, FPS_RULES.playerRadius, best);
      if (d >= 0 && (victim === undefined || d < best)) {
        best = d;
        victim = o;
      }
    }
    const x1 = ox + dx * best;
    const y1 = oy + dy * best;
    this.ctx.count("shots");
    this.emitTracer(s.playerId, victim?.playerId ?? 0, ox, oy, x1, y1);
    // A target that died between the shot's time and now takes no further damage.
    if (victim && victim.rec.hp > 0) {
      this.ctx.count("hits");
      victim.rec.hp = Math.max(0, victim.rec.hp - FPS_RULES.damage);
      if (victim.rec.hp === 0) this.kill(s, victim, now);
    }
  }

  private kill(killer: Shooter, victim: Shooter, now: number): void {
    killer.kills++;
    victim.deaths++;
    victim.respawnAt = now + FPS_RULES.respawnMs;
    this.scoreboard.kills.set(killer.playerId, killer.kills);
    this.scoreboard.deaths.set(victim.playerId, victim.deaths);
    this.ctx.count("kills");
    // A scoreboard a restart would take back: kept within KEEP_SOON_MS.
    this.ctx.keepSoon();
    const e = this.killed;
    e.killer = killer.playerId;
    e.victim = victim.playerId;
    this.ctx.emit(e);
  }

  private respawn(s: Shooter): void {
    const at = this.spawnPoint(s.playerId, this.rng, this.config.world);
    s.rec.x = at.x;
    s.rec.y = at.y;
    s.rec.hp = FPS_RULES.maxHp;
    this.clampToArena(s.rec);
    this.ctx.count("respawns");
  }

  /** Sends a tracer to every player whose AOI circle the segment touches (the shooter included). */
  private emitTracer(shooter: number, hit: number, x0: number, y0: number, x1: number, y1: number): void {
    const r = this.world.tiers.radius;
    const r2 = r * r;
    const audience = this.audience;
    audience.length = 0;
    const list = this.shooterList;
    for (let i = 0; i < list.length; i++) {
      const v = list[i];
      if (segmentPointDist2(x0, y0, x1, y1, v.rec.x, v.rec.y) <= r2) audience.push(v.playerId);
    }
    const e = this.tracer;
    e.shooter = shooter;
    e.hit = hit;
    e.x0 = x0;
    e.y0 = y0;
    e.x1 = x1;
    e.y1 = y1;
    this.ctx.emit(e, audience);
  }

  private clampToArena(rec: PlayerRecord): void {
    rec.x = clampToArena(rec.x, this.config.world);
    rec.y = clampToArena(rec.y, this.config.world);
  }
}

/** Creates an fps room from room options (tick length, cap), DEV_MODE params (`world`, `aoi`) and the room's seed. */
export function createFps(options: RoomOptions, params: GameParams, seed: number): FpsGame {
  return new FpsGame({
    world: params.world,
    aoiRadius: params.aoi,
    tickMs: options.tickMs,
    slots: options.cap,
    seed,
  });
}
