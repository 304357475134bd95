import {
  ClockSync,
  Predictor,
  connect,
  createInterpolatedView,
  schemaDecoder,
  type EntitySink,
  type InterpolatedView,
  type RoomConnection,
  type StateEvent,
} from "@tikron/client";
import { watch } from "@tikron/client/watch";
import { agarInputs, agarSchema, stepAgarCell, type AgarCellState, type AgarInput, type AgarSteer } from "@tikron/games/schemas";
import { BinaryWriter, quantizeInput } from "@tikron/protocol";
import { Camera } from "./camera";
import { AGAR } from "./gameRules";
import { planarDistance, type Point } from "./geometry";
import { ConnectedSession } from "./connectedSession";
import type { EntityInfo, GameSession, SessionOptions } from "./gameSession";
import type { InputState } from "./input";
import { OwnSmoothing } from "./ownSmoothing";
import type { AgarView, OrbRecord, PlayerRecord } from "./records";
import { renderAgar, type AgarScene } from "./renderAgar";

/** One sent input as the prediction replays it: the steering the room decoded, for one tick. */
interface CellStep extends AgarSteer {
  /** Server tick length (ms): each input stands for one tick of steering. */
  dtMs: number;
}

/** Pointer distance (fraction of the shorter screen side) that means full throttle. */
const FULL_THROTTLE_FRACTION = 0.25;

/**
 * The page's `agar` game: joins the room, interpolates other cells from the snapshot buffer,
 * predicts the own cell from the inputs it sends (one per server tick) and reconciles it with
 * each acknowledged server state.
 */
export class AgarSession extends ConnectedSession<PlayerRecord, AgarView> implements GameSession, AgarScene {
  readonly kind = "agar";
  readonly predictor: Predictor<AgarCellState, CellStep>;
  readonly conn: RoomConnection<AgarView>;
  readonly remotes: InterpolatedView<AgarView>;
  readonly clock = new ClockSync();
  /** Orbs in the latest server state, by entity id. */
  readonly orbs = new Map<number, OrbRecord>();
  readonly own: OwnSmoothing;
  readonly camera = new Camera();
  readonly world: number;
  showGhosts = false;
  /** True for a spectator's session (no seat, no inputs). */
  readonly watching: boolean;

  private readonly input: InputState;
  private readonly writer = new BinaryWriter(16);
  private readonly steer: AgarInput = { dx: 0, dy: 0, boost: false };
  private readonly sample = new Float64Array(3);
  private tickMs = 50;
  private inputTimer: ReturnType<typeof setInterval> | undefined;

  constructor(options: SessionOptions) {
    super();
    this.input = options.input;
    this.world = options.world ?? AGAR.defaultWorld;
    const world = this.world;
    this.predictor = new Predictor<AgarCellState, CellStep>({
      // The room's own rule; a fresh state each time, since `s` may be the decoder's record.
      applyInput: (s, step) => stepAgarCell(s, step, step.dtMs, world, { x: 0, y: 0, r: 0 }),
      error: planarDistance,
    });
    this.own = new OwnSmoothing(this.tickMs);
    const decoder = schemaDecoder(agarSchema);
    // Removes come before adds, so an id replaced in one body ends up with its new record.
    decoder.state.onRemove((e) => {
      if (e.type === "player") this.playerLeft(e.id);
      else this.orbs.delete(e.id);
    });
    decoder.state.onAdd((e) => {
      if (e.type === "player") this.playerEntered(e.id, e.record);
      else this.orbs.set(e.id, e.record);
    });
    this.watching = options.watch === true;
    // The overlay shows the round trip and the clock skew.
    const common = { kind: "agar", room: options.room, name: options.name, decoder, clock: this.clock, WebSocketImpl: options.WebSocketImpl };
    // A spectator (the lobby's "watch"): the same view and drawing, no seat, no inputs.
    this.conn = this.watching ? watch(options.server, common) : connect(options.server, { ...common, reservation: options.reservation, predictor: this.predictor });
    // Other cells are drawn interpolated; the own cell is predicted, so it is left out.
    this.remotes = createInterpolatedView(this.conn, { fields: ["x", "y", "r"], collect: this.collectRemotes });
    this.conn.on("welcome", (w) => {
      // A (re)join starts from an empty baseline: the decoder's view was just cleared.
      this.clearPlayers();
      this.orbs.clear();
      this.own.clear();
      if (w.tickMs > 0) this.tickMs = w.tickMs;
      this.own.setInterval(this.tickMs);
      this.lastError = null;
      if (!this.watching) this.startInputs();
    });
    this.conn.on("state", (f) => this.onState(f));
    this.reportConnectionProblems((c) => {
      if (!c.willReconnect) this.stopInputs();
    });
  }

  render(ctx: CanvasRenderingContext2D, now: number, width: number, height: number): void {
    this.own.update(now);
    this.remotes.update(now);
    renderAgar(ctx, this, width, height);
  }

  /** Radius the own cell is drawn with: predicted (boost burns mass), else the server's. */
  get ownRadius(): number {
    return this.predictor.state?.r ?? this.selfRecord?.r ?? AGAR.startRadius;
  }

  selfPosition(): Point | null {
    return this.own.ready ? { x: this.own.x, y: this.own.y } : null;
  }

  serverSelfPosition(): Point | null {
    const rec = this.selfRecord;
    return rec ? { x: rec.x, y: rec.y } : null;
  }

  entities(): EntityInfo[] {
    const out: EntityInfo[] = [];
    for (const [id, p] of this.players) out.push({ id, type: "player", x: p.x, y: p.y, name: p.name });
    for (const [id, o] of this.orbs) out.push({ id, type: "orb", x: o.x, y: o.y });
    return out;
  }

  hudLines(): string[] {
    const rec = this.selfRecord;
    return rec ? [`score ${rec.score}   radius ${rec.r.toFixed(1)}   cells ${this.players.size}   orbs ${this.orbs.size}`] : ["looking for own cell..."];
  }

  debugExtras(): Record<string, unknown> {
    const rec = this.selfRecord;
    return {
      world: this.world,
      score: rec?.score ?? 0,
      radius: rec?.r ?? 0,
      /** Other cells the snapshot buffer is interpolating. */
      remotes: this.remotes.size,
      pendingCorrection: this.own.pendingCorrection,
    };
  }

  dispose(): void {
    this.stopInputs();
    this.remotes.dispose();
    this.conn.close();
  }

  private readonly collectRemotes = (_view: AgarView, put: EntitySink): void => {
    const v = this.sample;
    const self = this.selfEntity;
    for (const [id, p] of this.players) {
      if (id === self) continue;
      v[0] = p.x;
      v[1] = p.y;
      v[2] = p.r;
      put(id, v);
    }
  };

  private onState(f: StateEvent<AgarView>): void {
    const changed = this.takeSelfChange();
    const rec = this.selfRecord;
    if (!rec) {
      this.own.clear();
      return;
    }
    if (changed) this.own.clear();
    const predicted = this.predictor.reconcile({ x: rec.x, y: rec.y, r: rec.r }, f.ackSeq >= 0 ? f.ackSeq : undefined);
    this.own.corrected(predicted.x, predicted.y, f.receivedAt);
  }

  private startInputs(): void {
    this.stopInputs();
    // Steering is a state on the server (the latest input of a tick wins), so one input per
    // tick, sent even when nothing changed, keeps each sent input matching one simulated tick
    // and the prediction in step with the server.
    this.inputTimer = setInterval(this.sendInput, this.tickMs);
  }

  private stopInputs(): void {
    clearInterval(this.inputTimer);
    this.inputTimer = undefined;
  }

  private readonly sendInput = (): void => {
    this.readSteering();
    const seq = this.conn.sendInput(agarInputs.encode(this.steer, this.writer));
    if (seq < 0) return;
    // Predict with exactly what the room reads: the stick quantized as the wire carries it.
    const seen = quantizeInput(agarInputs, this.steer);
    const predicted = this.predictor.push(seq, { dx: seen.dx, dy: seen.dy, boost: seen.boost, dtMs: this.tickMs });
    if (predicted) this.own.stepped(predicted.x, predicted.y, performance.now());
  };

  /** Steering from the device used last: keys (8 directions) or the pointer's offset from the cell. */
  private readSteering(): void {
    const s = this.steer;
    const inp = this.input;
    s.dx = 0;
    s.dy = 0;
    s.boost = inp.down("Space");
    if (typeof document !== "undefined" && document.hidden) {
      s.boost = false;
      return;
    }
    if (!inp.stickOrKeys(s) && inp.device === "mouse" && inp.mouseInside && this.own.ready) {
      const cam = this.camera;
      const ox = inp.mouseX - cam.screenX(this.own.x);
      const oy = inp.mouseY - cam.screenY(this.own.y);
      const len = Math.hypot(ox, oy);
      const full = FULL_THROTTLE_FRACTION * Math.min(cam.width, cam.height);
      if (len > 2) {
        const throttle = Math.min(1, len / full);
        s.dx = (ox / len) * throttle;
        s.dy = (oy / len) * throttle;
      }
    }
  }
}

