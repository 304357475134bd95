import {
  ClockSync,
  Predictor,
  connect,
  createInterpolatedView,
  schemaDecoder,
  type EntitySink,
  type GameEvent,
  type InterpolatedView,
  type RoomConnection,
  type StateEvent,
} from "@tikron/client";
import { FPS } from "./gameRules";
import { clampToArena, fpsInputs, fpsSchema, stepShooter, type FpsEvent, type FpsMove, type ShooterBody } from "@tikron/games/schemas";
import { BinaryWriter, quantizeInput } from "@tikron/protocol";
import { Camera } from "./camera";
import { CorrectionBlend } from "./correctionBlend";
import { angleDelta, planarDistance, type Point } from "./geometry";
import { MoveAccumulator, type ShooterMove } from "./moveAccumulator";
import { ConnectedSession } from "./connectedSession";
import type { EntityInfo, GameSession, SessionOptions } from "./gameSession";
import type { InputState } from "./input";
import { LocalHitscan } from "./localHitscan";
import type { FpsView, ScoreRecord, ShooterRecord } from "./records";
import { drawCrosshair, renderFps, type FpsScene } from "./renderFps";
import { TracerBuffer, TracerKind } from "./tracers";

/** Lines of the kill feed kept for the overlay. */
const KILL_FEED = 4;
/** An aim change smaller than this (radians) is not worth an aim-only move. */
const AIM_EPSILON = 0.02;
/** Fastest the page fires: the room's sustained rate, so clicks never earn an error. */
const SHOT_SPACING_MS = 1000 / FPS.fireRatePerSec;

/**
 * The page's `fps` game (top-down hitscan shooter).
 *
 * Moves are client steps: every render frame's stick is collected and sent as one move per
 * tick interval ({@link MoveAccumulator}), so the Predictor replays exactly what the server
 * applies and the own player is drawn at `prediction + unsent movement` with no added latency.
 * A click draws a tracer at once from what the player sees (remote players interpolated), and
 * sends the shot stamped with the snapshot buffer's render time; the server rewinds its
 * targets to that time and its tracer event, drawn when it arrives, is what counts.
 */
export class FpsSession extends ConnectedSession<ShooterRecord, FpsView> implements GameSession, FpsScene {
  readonly kind = "fps";
  readonly predictor: Predictor<ShooterBody, ShooterMove>;
  readonly conn: RoomConnection<FpsView>;
  readonly remotes: InterpolatedView<FpsView>;
  /** The room's clock: a shot before the first snapshot is stamped with its room time. */
  readonly clock = new ClockSync();
  scoreboard: ScoreRecord | null = null;
  readonly tracers = new TracerBuffer();
  readonly camera = new Camera();
  readonly world: number;
  showGhosts = false;

  /** Own player as drawn (predicted + unsent movement + blended corrections); valid when {@link ownReady}. */
  ownX = 0;
  ownY = 0;
  ownReady = false;
  /** Current aim (radians, world frame). */
  aim = 0;
  /** Shots sent, and server tracers of own shots that hit someone. */
  shotsSent = 0;
  hitsConfirmed = 0;
  /** The last server tracer of an own shot (debugging, tests). */
  lastOwnTracer: { hit: number; x0: number; y0: number; x1: number; y1: number } | null = null;
  readonly killFeed: string[] = [];

  private readonly input: InputState;
  private readonly accumulator = new MoveAccumulator();
  private readonly blend = new CorrectionBlend();
  private readonly hitscan = new LocalHitscan();
  private readonly writer = new BinaryWriter(32);
  private readonly move: ShooterMove = { dx: 0, dy: 0, dtMs: 0 };
  private readonly axes = { x: 0, y: 0 };
  private readonly sample = new Float64Array(4);
  private tickMs = 33;
  private lastFrame = NaN;
  private lastSend = -Infinity;
  private lastAimSent = NaN;
  private lastShot = -Infinity;

  constructor(options: SessionOptions) {
    super();
    this.input = options.input;
    this.world = options.world ?? FPS.defaultWorld;
    const world = this.world;
    this.predictor = new Predictor<ShooterBody, ShooterMove>({
      // The room's own rule; a fresh state each time, since `s` may be the reconciled server state.
      applyInput: (s, m) => stepShooter(s, m, m.dtMs, world, { x: 0, y: 0, hp: 0 }),
      error: planarDistance,
    });
    // The schema declares the events: the decoder reads tracers and kills with no codec of ours.
    const decoder = schemaDecoder(fpsSchema);
    decoder.state.onRemove((e) => {
      if (e.type === "player") this.playerLeft(e.id);
      else this.scoreboard = null;
    });
    decoder.state.onAdd((e) => {
      if (e.type === "player") this.playerEntered(e.id, e.record);
      else this.scoreboard = e.record;
    });
    this.conn = connect(options.server, {
      kind: "fps",
      room: options.room,
      name: options.name,
      reservation: options.reservation,
      decoder,
      predictor: this.predictor,
      clock: this.clock,
      WebSocketImpl: options.WebSocketImpl,
    });
    // Other players are drawn interpolated (hp steps: no blending between alive and dead); the
    // own player is predicted, so it is left out.
    this.remotes = createInterpolatedView(this.conn, {
      fields: ["x", "y", { name: "angle", interp: "angle" }, { name: "hp", interp: "step" }],
      collect: this.collectRemotes,
    });
    this.conn.on("welcome", (w) => {
      this.clearPlayers();
      this.scoreboard = null;
      this.ownReady = false;
      this.accumulator.clear();
      this.blend.clear();
      this.tracers.clear();
      if (w.tickMs > 0) this.tickMs = w.tickMs;
      this.lastError = null;
    });
    this.conn.on("state", (f) => this.onState(f));
    this.conn.on("event", (e) => this.onEvent(e));
    this.reportConnectionProblems();
  }

  /** Render time of the last frame (room ms): what the player saw, so what shots are stamped with. */
  get renderTime(): number {
    return this.remotes.renderTime;
  }

  /** True while the own player is alive in the latest state. */
  get alive(): boolean {
    const rec = this.selfRecord;
    return rec !== undefined && rec.hp > 0;
  }

  /**
   * One render frame: collects this frame's stick, sends a move when one is due, fires queued
   * clicks, then draws. Input lives here rather than on a timer so the movement drawn and the
   * movement sent are the same frames.
   */
  render(ctx: CanvasRenderingContext2D, now: number, width: number, height: number): void {
    const frameMs = Number.isNaN(this.lastFrame) ? 0 : now - this.lastFrame;
    this.lastFrame = now;
    this.remotes.update(now);
    this.blend.update(now);
    const alive = this.alive && this.status === "joined";
    if (alive) {
      this.input.moveAxes(this.axes);
      const len = Math.hypot(this.axes.x, this.axes.y);
      const hidden = typeof document !== "undefined" && document.hidden;
      if (len > 0 && !hidden) this.accumulator.addFrame(this.axes.x / len, this.axes.y / len, frameMs);
      else this.accumulator.addFrame(0, 0, frameMs);
    } else {
      this.accumulator.clear();
    }
    this.updateOwn();
    this.camera.follow(this.ownReady ? this.ownX : this.world / 2, this.ownReady ? this.ownY : this.world / 2, this.ownReady ? 1000 : this.world * 1.1, width, height);
    if (this.ownReady && this.input.mouseInside) {
      this.aim = Math.atan2(this.camera.worldY(this.input.mouseY) - this.ownY, this.camera.worldX(this.input.mouseX) - this.ownX);
    }
    if (alive && now - this.lastSend >= this.tickMs) this.flushMove(now);
    const clicks = this.input.takeClicks();
    if (alive && clicks > 0 && now - this.lastShot >= SHOT_SPACING_MS) this.shoot(now);
    renderFps(ctx, this, now, width, height);
    if (this.input.mouseInside) drawCrosshair(ctx, this.input.mouseX, this.input.mouseY);
  }

  selfPosition(): Point | null {
    return this.ownReady ? { x: this.ownX, y: this.ownY } : null;
  }

  serverSelfPosition(): Point | null {
    const rec = this.selfRecord;
    return rec ? { x: rec.x, y: rec.y } : null;
  }

  entities(): EntityInfo[] {
    const out: EntityInfo[] = [];
    for (const [id, p] of this.players) out.push({ id, type: "player", x: p.x, y: p.y, name: p.name });
    return out;
  }

  /** Name of player id `pid` from the latest state (`p<id>` when out of view). */
  nameOf(pid: number): string {
    for (const p of this.players.values()) if (p.pid === pid) return p.name;
    return `p${pid}`;
  }

  hudLines(): string[] {
    const rec = this.selfRecord;
    if (!rec) return ["looking for own player..."];
    const pid = this.playerId;
    const kills = this.scoreboard?.kills.get(pid) ?? 0;
    const deaths = this.scoreboard?.deaths.get(pid) ?? 0;
    const lines = [`hp ${rec.hp}${rec.hp === 0 ? " (respawning)" : ""}   kills ${kills}   deaths ${deaths}   shots ${this.shotsSent} (${this.hitsConfirmed} hits)`];
    for (const k of this.killFeed) lines.push(`  ${k}`);
    return lines;
  }

  debugExtras(): Record<string, unknown> {
    const rec = this.selfRecord;
    const cam = this.camera;
    return {
      world: this.world,
      hp: rec?.hp ?? 0,
      aim: this.aim,
      /** Tracers drawn at the click, and tracers the server sent. */
      tracers: this.tracers.added[TracerKind.Local],
      serverTracers: this.tracers.added[TracerKind.Miss]! + this.tracers.added[TracerKind.Hit]!,
      shotsSent: this.shotsSent,
      hitsConfirmed: this.hitsConfirmed,
      lastOwnTracer: this.lastOwnTracer,
      remotes: this.remotes.size,
      camera: { x: cam.x, y: cam.y, scale: cam.scale, width: cam.width, height: cam.height },
      players: [...this.players.values()].map((p) => ({ pid: p.pid, x: p.x, y: p.y, hp: p.hp, name: p.name })),
    };
  }

  dispose(): void {
    this.remotes.dispose();
    this.conn.close();
  }

  private updateOwn(): void {
    const p = this.predictor.state;
    if (!p || this.selfEntity < 0) {
      this.ownReady = false;
      return;
    }
    this.ownX = clampToArena(p.x + this.accumulator.pendingX() + this.blend.x, this.world);
    this.ownY = clampToArena(p.y + this.accumulator.pendingY() + this.blend.y, this.world);
    this.ownReady = true;
  }

  private flushMove(now: number): void {
    const m = this.move;
    let sent = false;
    while (this.accumulator.take(m)) {
      if (!this.sendMove(m.dx, m.dy, m.dtMs)) {
        this.accumulator.clear();
        break;
      }
      sent = true;
    }
    // Turning in place still matters to others (facing): an aim-only move, now and then.
    if (!sent && !(Math.abs(angleDelta(this.aim, this.lastAimSent)) < AIM_EPSILON)) sent = this.sendMove(0, 0, 0);
    if (sent) this.lastSend = now;
  }

  private sendMove(dx: number, dy: number, dtMs: number): boolean {
    const move: FpsMove = { kind: "move", dx, dy, dtMs, aim: this.aim };
    const seq = this.conn.sendInput(fpsInputs.encode(move, this.writer));
    if (seq < 0) return false;
    this.lastAimSent = this.aim;
    // Predict with exactly what the room reads: the stick and step quantized as the wire carries them.
    const seen = quantizeInput(fpsInputs, move) as FpsMove;
    this.predictor.push(seq, { dx: seen.dx, dy: seen.dy, dtMs: seen.dtMs });
    return true;
  }

  private shoot(now: number): void {
    // The server fires from the position after every earlier move: send the unsent part first,
    // so the shot leaves from where the player is drawn.
    this.flushMove(now);
    this.lastSend = now;
    const time = Number.isFinite(this.renderTime) ? this.renderTime : this.clock.roomTime();
    const seq = this.conn.sendInput(fpsInputs.encode({ kind: "shot", time, aim: this.aim }, this.writer));
    if (seq < 0) return;
    this.lastShot = now;
    this.shotsSent++;
    // Instant feedback against the players as drawn; the server's tracer follows.
    const hs = this.hitscan;
    hs.begin(this.ownX, this.ownY, this.aim, FPS.range, this.world);
    this.remotes.forEach(this.offerTarget);
    this.tracers.add(TracerKind.Local, this.ownX, this.ownY, hs.x1, hs.y1, now);
  }

  private readonly offerTarget = (id: number, v: Float64Array): void => {
    if (v[3]! > 0) this.hitscan.target(id, v[0]!, v[1]!, FPS.playerRadius);
  };

  private readonly collectRemotes = (_view: FpsView, put: EntitySink): void => {
    const v = this.sample;
    const self = this.selfEntity;
    for (const [id, p] of this.players) {
      if (id === self) continue;
      v[0] = p.x;
      v[1] = p.y;
      v[2] = p.angle;
      v[3] = p.hp;
      put(id, v);
    }
  };

  private onState(f: StateEvent<FpsView>): void {
    if (this.takeSelfChange()) this.blend.clear();
    const rec = this.selfRecord;
    if (!rec) return;
    const before = this.predictor.state;
    const after = this.predictor.reconcile({ x: rec.x, y: rec.y, hp: rec.hp }, f.ackSeq >= 0 ? f.ackSeq : undefined);
    if (before) this.blend.corrected(after.x - before.x, after.y - before.y);
  }

  private onEvent(e: GameEvent): void {
    const ev = e.body as FpsEvent;
    const now = performance.now();
    if (ev.kind === "tracer") {
      this.tracers.add(ev.hit !== 0 ? TracerKind.Hit : TracerKind.Miss, ev.x0, ev.y0, ev.x1, ev.y1, now);
      if (ev.shooter === this.playerId) {
        this.lastOwnTracer = { hit: ev.hit, x0: ev.x0, y0: ev.y0, x1: ev.x1, y1: ev.y1 };
        if (ev.hit !== 0) this.hitsConfirmed++;
      }
    } else {
      this.killFeed.push(`${this.nameOf(ev.killer)} eliminated ${this.nameOf(ev.victim)}`);
      if (this.killFeed.length > KILL_FEED) this.killFeed.shift();
    }
  }
}
