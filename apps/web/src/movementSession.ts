import {
  ClockSync,
  connect,
  createInterpolatedView,
  errorName,
  schemaDecoder,
  type ConnectionStatus,
  type EntitySink,
  type InterpolatedView,
  type RoomConnection,
  type SnapshotBuffer,
} from "@tikron/client";
import { MOVEMENT_RULES, movementInputs, movementSchema, type MovementInput } from "@tikron/games/schemas";
import { BinaryWriter } from "@tikron/protocol";
import { Camera } from "./camera";
import type { Point } from "./geometry";
import type { EntityInfo, GameSession, SessionOptions } from "./gameSession";
import type { InputState } from "./input";
import { sessionStats, type SessionStats } from "./sessionStats";
import type { MovementView, WalkerRecord } from "./records";
import { drawWorldBackground, fontFor } from "./renderCommon";

/** World units across the shorter screen side. */
const VIEW_SPAN = 700;
const DOT_RADIUS = 10;

/**
 * The page's `movement` game: every walker, the own one included, drawn from the SDK's
 * interpolated view (the room's records carry no player id, so the own dot is the one with this
 * page's name). No prediction: the own dot lags by the interpolation delay, which the net graph
 * shows; agar and fps are the games that predict.
 */
export class MovementSession implements GameSession {
  readonly kind = "movement";
  readonly conn: RoomConnection<MovementView>;
  readonly remotes: InterpolatedView<MovementView>;
  /** The connection's clock (the overlay shows its round trip). */
  readonly clock = new ClockSync();
  readonly camera = new Camera();
  readonly world: number;
  showGhosts = false;
  lastError: string | null = null;
  private readonly walkers = new Map<number, WalkerRecord>();
  private readonly input: InputState;
  private readonly readStats: () => SessionStats;
  private readonly name: string;
  private readonly writer = new BinaryWriter(16);
  private readonly steer: MovementInput = { dx: 0, dy: 0, sprint: false };
  private readonly sample = new Float64Array(2);
  private selfEntity = -1;
  private tickMs = 50;
  private inputTimer: ReturnType<typeof setInterval> | undefined;

  constructor(o: SessionOptions) {
    this.input = o.input;
    this.name = o.name;
    this.world = o.world ?? MOVEMENT_RULES.world;
    const decoder = schemaDecoder(movementSchema);
    decoder.state.onRemove((e) => {
      this.walkers.delete(e.id);
      if (e.id === this.selfEntity) this.selfEntity = -1;
    });
    decoder.state.onAdd((e) => {
      this.walkers.set(e.id, e.record);
      if (e.record.name === this.name) this.selfEntity = e.id;
    });
    this.conn = connect(o.server, { kind: "movement", room: o.room, name: o.name, reservation: o.reservation, decoder, clock: this.clock, WebSocketImpl: o.WebSocketImpl });
    this.remotes = createInterpolatedView(this.conn, { fields: ["x", "y"], collect: this.collect });
    this.readStats = sessionStats(this.conn, this.clock, this.remotes.buffer);
    this.conn.on("welcome", (w) => {
      this.walkers.clear();
      this.selfEntity = -1;
      if (w.tickMs > 0) this.tickMs = w.tickMs;
      this.lastError = null;
      clearInterval(this.inputTimer);
      this.inputTimer = setInterval(this.sendInput, this.tickMs);
    });
    this.conn.on("error", (e) => (this.lastError = `${e.name ?? errorName(e.code)}: ${e.reason}`));
    this.conn.on("close", (c) => {
      if (!c.deliberate) this.lastError = `socket closed (${c.code}${c.reason ? ` ${c.reason}` : ""})`;
      if (!c.willReconnect) clearInterval(this.inputTimer);
    });
  }

  get status(): ConnectionStatus {
    return this.conn.status;
  }
  /** The connection's, clock's and buffer's live numbers (one object, refreshed on read). */
  get stats(): SessionStats {
    return this.readStats();
  }
  get snapshots(): SnapshotBuffer {
    return this.remotes.buffer;
  }
  get playerId(): number {
    return this.conn.playerId;
  }
  get selfId(): number {
    return this.selfEntity;
  }

  render(ctx: CanvasRenderingContext2D, now: number, width: number, height: number): void {
    this.remotes.update(now);
    const self = this.selfEntity >= 0 ? this.remotes.sample(this.selfEntity) : null;
    const cam = this.camera;
    cam.follow(self ? self[0]! : this.world / 2, self ? self[1]! : this.world / 2, VIEW_SPAN, width, height);
    drawWorldBackground(ctx, cam, this.world, this.world);
    ctx.font = fontFor(12);
    ctx.textAlign = "center";
    this.remotes.forEach((id, v) => {
      const x = cam.screenX(v[0]!);
      const y = cam.screenY(v[1]!);
      const own = id === this.selfEntity;
      ctx.fillStyle = own ? "#ffd166" : "#5ec8ff";
      ctx.beginPath();
      ctx.arc(x, y, DOT_RADIUS * cam.scale + 2, 0, Math.PI * 2);
      ctx.fill();
      const rec = this.walkers.get(id);
      if (rec) {
        ctx.fillStyle = "rgba(255,255,255,0.8)";
        ctx.fillText(rec.name, x, y - DOT_RADIUS * cam.scale - 8);
      }
    });
    if (this.showGhosts) {
      ctx.strokeStyle = "rgba(255,255,255,0.55)";
      for (const rec of this.walkers.values()) {
        ctx.beginPath();
        ctx.arc(cam.screenX(rec.x), cam.screenY(rec.y), DOT_RADIUS * cam.scale + 2, 0, Math.PI * 2);
        ctx.stroke();
      }
    }
  }

  selfPosition(): Point | null {
    const v = this.selfEntity >= 0 ? this.remotes.sample(this.selfEntity) : null;
    return v ? { x: v[0]!, y: v[1]! } : null;
  }

  serverSelfPosition(): Point | null {
    const rec = this.walkers.get(this.selfEntity);
    return rec ? { x: rec.x, y: rec.y } : null;
  }

  entities(): EntityInfo[] {
    return [...this.walkers].map(([id, r]) => ({ id, type: "player", x: r.x, y: r.y, name: r.name }));
  }

  hudLines(): string[] {
    return [`walkers ${this.walkers.size}${this.selfEntity < 0 ? "   looking for own dot..." : ""}`];
  }

  debugExtras(): Record<string, unknown> {
    return { world: this.world, walkers: this.walkers.size, remotes: this.remotes.size };
  }

  dispose(): void {
    clearInterval(this.inputTimer);
    this.remotes.dispose();
    this.conn.close();
  }

  private readonly collect = (_view: MovementView, put: EntitySink): void => {
    const v = this.sample;
    for (const [id, p] of this.walkers) {
      v[0] = p.x;
      v[1] = p.y;
      put(id, v);
    }
  };

  /** One steering input per tick (the room holds the latest stick), from stick, keys or pointer. */
  private readonly sendInput = (): void => {
    const s = this.steer;
    const inp = this.input;
    s.dx = s.dy = 0;
    s.sprint = inp.down("ShiftLeft") || inp.down("ShiftRight");
    if (!inp.stickOrKeys(s) && inp.device === "mouse" && inp.mouseInside && this.selfEntity >= 0) {
      const ox = inp.mouseX - this.camera.width / 2;
      const oy = inp.mouseY - this.camera.height / 2;
      const len = Math.hypot(ox, oy);
      if (len > 8) {
        const t = Math.min(1, len / (0.25 * Math.min(this.camera.width, this.camera.height)));
        s.dx = (ox / len) * t;
        s.dy = (oy / len) * t;
      }
    }
    this.conn.sendInput(movementInputs.encode(s, this.writer));
  };
}
