import type { SampleKind } from "@tikron/client";
import type { Camera } from "./camera";
import { AGAR } from "./gameRules";
import type { OwnSmoothing } from "./ownSmoothing";
import type { OrbRecord, PlayerRecord } from "./records";
import { drawGhosts, drawWorldBackground, fontFor, type Remotes } from "./renderCommon";
import { drawMinimap } from "./renderMinimap";

/**
 * What an agar frame draws, as the session holds it. Declared here, by the renderer, so the
 * session depends on the renderer and not the other way round.
 */
export interface AgarScene {
  /** The own cell where it is shown (predicted, smoothed); advanced to this frame. */
  readonly own: Readonly<Pick<OwnSmoothing, "ready" | "x" | "y">>;
  /** Radius to draw the own cell with. */
  readonly ownRadius: number;
  /** The own cell's latest server record (name label). */
  readonly selfRecord: PlayerRecord | undefined;
  /** Entity id of the own cell (-1 while unknown). */
  readonly selfId: number;
  readonly camera: Camera;
  /** Arena edge. */
  readonly world: number;
  /** Orbs in the latest state (they never move, only respawn: drawn as they are). */
  readonly orbs: ReadonlyMap<number, OrbRecord>;
  /** Players in the latest state (labels, ghosts, minimap). */
  readonly players: ReadonlyMap<number, PlayerRecord>;
  /** Other cells, interpolated at this frame's render time: x, y, r. */
  readonly remotes: Remotes;
  /** Also draw the raw server positions. */
  readonly showGhosts: boolean;
}

/** Orb colours by the schema's `color` field (0..7). */
const ORB_COLORS = ["#ff5c5c", "#ffb347", "#ffe066", "#7ee081", "#4fd1c5", "#5ca8ff", "#a58cff", "#ff7ad9"];
/** Remote cell colours, picked by entity id. */
const CELL_COLORS = ["#e4572e", "#f3a712", "#a8c686", "#669bbc", "#c45baa", "#29bf12", "#ff6f59", "#3fa7d6", "#f26419", "#b388eb"];
const OWN_FILL = "#2ee6a8";
const OWN_STROKE = "#eafff7";

const LABEL_FILL = "#ffffff";
const LABEL_SHADOW = "rgba(0,0,0,0.6)";

// The forEach callbacks below are created once; these carry the frame's context into them.
let cx: CanvasRenderingContext2D | null = null;
let cam: Camera | null = null;
let session: AgarScene | null = null;

function drawOrb(o: OrbRecord): void {
  if (!cam!.visible(o.x, o.y, AGAR.orbRadius)) return;
  const c = cx!;
  c.fillStyle = ORB_COLORS[o.color & 7]!;
  c.beginPath();
  c.arc(cam!.screenX(o.x), cam!.screenY(o.y), Math.max(1.5, AGAR.orbRadius * cam!.scale), 0, Math.PI * 2);
  c.fill();
}

function drawRemote(id: number, v: Float64Array, _kind: SampleKind): void {
  const x = v[0]!;
  const y = v[1]!;
  const r = v[2]!;
  if (!cam!.visible(x, y, r)) return;
  const c = cx!;
  const sx = cam!.screenX(x);
  const sy = cam!.screenY(y);
  const sr = r * cam!.scale;
  c.fillStyle = CELL_COLORS[id % CELL_COLORS.length]!;
  c.beginPath();
  c.arc(sx, sy, sr, 0, Math.PI * 2);
  c.fill();
  const rec = session!.players.get(id);
  if (rec) label(c, rec.name, sx, sy, sr);
}

function drawGhost(p: PlayerRecord): void {
  const c = cx!;
  c.beginPath();
  c.arc(cam!.screenX(p.x), cam!.screenY(p.y), p.r * cam!.scale, 0, Math.PI * 2);
  c.stroke();
}

const selfPoint = { x: 0, y: 0 };
let dotFn: ((x: number, y: number) => void) | null = null;

function visitPlayer(p: PlayerRecord, id: number): void {
  if (id !== session!.selfId) dotFn!(p.x, p.y);
}

function eachPlayer(dot: (x: number, y: number) => void): void {
  dotFn = dot;
  session!.players.forEach(visitPlayer);
  dotFn = null;
}

function label(c: CanvasRenderingContext2D, text: string, sx: number, sy: number, sr: number): void {
  if (sr < 8 || text === "") return;
  c.font = fontFor(sr * 0.55);
  c.fillStyle = LABEL_SHADOW;
  c.fillText(text, sx + 1, sy + 1);
  c.fillStyle = LABEL_FILL;
  c.fillText(text, sx, sy);
}

/**
 * Draws one agar frame: arena, orbs (latest state; they never move, only respawn), other cells
 * interpolated at the render time, the own cell at its predicted and smoothed position, and
 * optionally the raw server positions as dashed ghosts. The scene's clocks (own smoothing,
 * render time) are advanced by the caller; drawing changes nothing.
 */
export function renderAgar(ctx: CanvasRenderingContext2D, s: AgarScene, width: number, height: number): void {
  const own = s.own;
  const selfRec = s.selfRecord;
  const ownR = s.ownRadius;
  const camera = s.camera;
  if (own.ready) camera.follow(own.x, own.y, 900 + ownR * 6, width, height);
  else camera.follow(s.world / 2, s.world / 2, s.world * 1.1, width, height);

  drawWorldBackground(ctx, camera, s.world, s.world);

  cx = ctx;
  cam = camera;
  session = s;
  try {
    s.orbs.forEach(drawOrb);

    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    s.remotes.forEach(drawRemote);

    if (own.ready) {
      const sx = camera.screenX(own.x);
      const sy = camera.screenY(own.y);
      const sr = ownR * camera.scale;
      ctx.fillStyle = OWN_FILL;
      ctx.strokeStyle = OWN_STROKE;
      ctx.lineWidth = 3;
      ctx.beginPath();
      ctx.arc(sx, sy, sr, 0, Math.PI * 2);
      ctx.fill();
      ctx.stroke();
      if (selfRec) label(ctx, selfRec.name, sx, sy, sr);
    }

    if (s.showGhosts) drawGhosts(ctx, s.players, drawGhost);

    selfPoint.x = own.x;
    selfPoint.y = own.y;
    drawMinimap(ctx, camera, s.world, own.ready ? selfPoint : null, eachPlayer);
  } finally {
    cx = null;
    cam = null;
    session = null;
  }
}
