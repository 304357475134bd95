import type { SampleKind } from "@tikron/client";
import type { Camera } from "./camera";
import { FPS } from "./gameRules";
import type { ShooterRecord } from "./records";
import { drawGhosts, drawWorldBackground, fontFor, type Remotes } from "./renderCommon";
import { drawMinimap } from "./renderMinimap";
import { TracerKind, type TracerBuffer } from "./tracers";

/**
 * What an fps frame draws, as the session holds it. Declared here, by the renderer, so the
 * session depends on the renderer and not the other way round.
 */
export interface FpsScene {
  readonly camera: Camera;
  /** Arena edge. */
  readonly world: number;
  /** Other players, interpolated at this frame's render time: x, y, angle, hp. */
  readonly remotes: Remotes;
  /** The own player's latest server record (hp), and its entity id (-1 while unknown). */
  readonly selfRecord: ShooterRecord | undefined;
  readonly selfId: number;
  /** The own player where it is shown (predicted + unsent movement); valid when `ownReady`. */
  readonly ownX: number;
  readonly ownY: number;
  readonly ownReady: boolean;
  /** Own aim (radians). */
  readonly aim: number;
  readonly tracers: Pick<TracerBuffer, "forEach">;
  /** Players in the latest state (labels, ghosts, minimap). */
  readonly players: ReadonlyMap<number, ShooterRecord>;
  /** Also draw the raw server positions. */
  readonly showGhosts: boolean;
}

const PLAYER_COLORS = ["#e4572e", "#f3a712", "#a8c686", "#669bbc", "#c45baa", "#ff6f59", "#3fa7d6", "#b388eb"];
const OWN_FILL = "#2ee6a8";
const OWN_STROKE = "#eafff7";
const FACING = "#ffffff";
const HP_BACK = "rgba(0,0,0,0.55)";
const HP_FILL = "#7ee081";
const HP_LOW = "#ff5c5c";
const LABEL = "#ffffff";
const CROSSHAIR = "rgba(255,255,255,0.85)";
/** Tracer colours by kind: local feedback, server miss, server hit. */
const TRACER_COLORS = ["#fff3a0", "#9fd3ff", "#ff4d4d"];
const TRACER_WIDTHS = [1.5, 2, 3];

let cx: CanvasRenderingContext2D | null = null;
let cam: Camera | null = null;
let session: FpsScene | null = null;

function drawBody(c: CanvasRenderingContext2D, sx: number, sy: number, sr: number, angle: number, hp: number): void {
  c.beginPath();
  c.arc(sx, sy, sr, 0, Math.PI * 2);
  c.fill();
  c.strokeStyle = FACING;
  c.lineWidth = 2;
  c.beginPath();
  c.moveTo(sx, sy);
  c.lineTo(sx + Math.cos(angle) * sr * 1.6, sy + Math.sin(angle) * sr * 1.6);
  c.stroke();
  const w = sr * 2;
  c.fillStyle = HP_BACK;
  c.fillRect(sx - sr, sy - sr - 9, w, 4);
  c.fillStyle = hp > 25 ? HP_FILL : HP_LOW;
  c.fillRect(sx - sr, sy - sr - 9, (w * Math.max(0, Math.min(FPS.maxHp, hp))) / FPS.maxHp, 4);
}

function drawRemote(id: number, v: Float64Array, _kind: SampleKind): void {
  // Dead players are not drawn; this also hides the slide from death spot to respawn point,
  // since hp steps (no blending) and stays 0 until the respawned snapshot is reached.
  if (v[3]! <= 0) return;
  const x = v[0]!;
  const y = v[1]!;
  if (!cam!.visible(x, y, FPS.playerRadius * 2)) return;
  const c = cx!;
  const sx = cam!.screenX(x);
  const sy = cam!.screenY(y);
  const sr = FPS.playerRadius * cam!.scale;
  c.fillStyle = PLAYER_COLORS[id % PLAYER_COLORS.length]!;
  drawBody(c, sx, sy, sr, v[2]!, v[3]!);
  const rec = session!.players.get(id);
  if (rec) {
    c.font = fontFor(11);
    c.fillStyle = LABEL;
    c.fillText(rec.name, sx, sy + sr + 12);
  }
}

function drawGhost(p: ShooterRecord): void {
  if (p.hp <= 0) return;
  const c = cx!;
  c.beginPath();
  c.arc(cam!.screenX(p.x), cam!.screenY(p.y), FPS.playerRadius * cam!.scale, 0, Math.PI * 2);
  c.stroke();
}

const selfPoint = { x: 0, y: 0 };
let dotFn: ((x: number, y: number) => void) | null = null;

function visitPlayer(p: ShooterRecord, id: number): void {
  if (id !== session!.selfId && p.hp > 0) dotFn!(p.x, p.y);
}

function eachPlayer(dot: (x: number, y: number) => void): void {
  dotFn = dot;
  session!.players.forEach(visitPlayer);
  dotFn = null;
}

function drawTracer(kind: TracerKind, x0: number, y0: number, x1: number, y1: number, life: number): void {
  const c = cx!;
  c.globalAlpha = life;
  c.strokeStyle = TRACER_COLORS[kind]!;
  c.lineWidth = TRACER_WIDTHS[kind]!;
  c.beginPath();
  c.moveTo(cam!.screenX(x0), cam!.screenY(y0));
  c.lineTo(cam!.screenX(x1), cam!.screenY(y1));
  c.stroke();
  if (kind === TracerKind.Hit) {
    c.fillStyle = TRACER_COLORS[kind]!;
    c.beginPath();
    c.arc(cam!.screenX(x1), cam!.screenY(y1), 5, 0, Math.PI * 2);
    c.fill();
  }
}

/**
 * Draws one fps frame: arena, other players interpolated at the snapshot buffer's render time
 * (facing and hp bars), shot tracers (page feedback and the server's), the own player at its
 * predicted position facing the pointer, optional server ghosts, and the crosshair.
 */
export function renderFps(ctx: CanvasRenderingContext2D, s: FpsScene, now: number, width: number, height: number): void {
  const camera = s.camera;
  drawWorldBackground(ctx, camera, s.world, s.world);
  cx = ctx;
  cam = camera;
  session = s;
  try {
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    s.remotes.forEach(drawRemote);

    const own = s.selfRecord;
    if (s.ownReady && own && own.hp > 0) {
      const sx = camera.screenX(s.ownX);
      const sy = camera.screenY(s.ownY);
      ctx.fillStyle = OWN_FILL;
      drawBody(ctx, sx, sy, FPS.playerRadius * camera.scale, s.aim, own.hp);
      ctx.strokeStyle = OWN_STROKE;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(sx, sy, FPS.playerRadius * camera.scale, 0, Math.PI * 2);
      ctx.stroke();
    }

    s.tracers.forEach(now, drawTracer);
    ctx.globalAlpha = 1;

    if (s.showGhosts) drawGhosts(ctx, s.players, drawGhost);

    selfPoint.x = s.ownX;
    selfPoint.y = s.ownY;
    drawMinimap(ctx, camera, s.world, s.ownReady ? selfPoint : null, eachPlayer);

    if (own && own.hp === 0) {
      ctx.font = fontFor(28);
      ctx.fillStyle = LABEL;
      ctx.fillText("eliminated - respawning", width / 2, height / 2);
    }
  } finally {
    cx = null;
    cam = null;
    session = null;
  }
}

/** Draws the aiming crosshair at the pointer (CSS pixels). */
export function drawCrosshair(ctx: CanvasRenderingContext2D, x: number, y: number): void {
  ctx.strokeStyle = CROSSHAIR;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(x - 9, y);
  ctx.lineTo(x - 3, y);
  ctx.moveTo(x + 3, y);
  ctx.lineTo(x + 9, y);
  ctx.moveTo(x, y - 9);
  ctx.lineTo(x, y - 3);
  ctx.moveTo(x, y + 3);
  ctx.lineTo(x, y + 9);
  ctx.stroke();
}
