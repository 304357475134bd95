import type { InterpolatedView } from "@tikron/client";
import type { Camera } from "./camera";

/** The interpolated remote entities a renderer reads (at the render time of the current frame). */
export type Remotes = Pick<InterpolatedView, "forEach">;

/** Dash pattern of "server ghost" outlines; shared so no array is made per frame. */
export const GHOST_DASH: readonly number[] = [6, 4];
export const NO_DASH: readonly number[] = [];

const BACKGROUND = "#10141f";
const OUTSIDE = "#080a10";
const GRID = "rgba(255,255,255,0.06)";
const BORDER = "rgba(255,255,255,0.35)";
/** World units between grid lines. */
const GRID_STEP = 50;

// Canvas font strings for whole pixel sizes, built once instead of per label per frame.
const FONT_MIN = 9;
const FONT_MAX = 48;
const FONTS: string[] = [];
for (let px = FONT_MIN; px <= FONT_MAX; px++) FONTS.push(`600 ${px}px system-ui, sans-serif`);

/** A cached label font close to `px` pixels. */
export function fontFor(px: number): string {
  const i = Math.round(Math.min(FONT_MAX, Math.max(FONT_MIN, px))) - FONT_MIN;
  return FONTS[i]!;
}

/**
 * Clears the canvas and draws a `worldW` × `worldH` arena as the camera sees it: dark outside,
 * a faint grid inside (the grid is what makes one's own motion visible while centred), and
 * its border.
 */
export function drawWorldBackground(ctx: CanvasRenderingContext2D, cam: Camera, worldW: number, worldH: number): void {
  ctx.fillStyle = OUTSIDE;
  ctx.fillRect(0, 0, cam.width, cam.height);
  const left = cam.screenX(0);
  const top = cam.screenY(0);
  const right = cam.screenX(worldW);
  const bottom = cam.screenY(worldH);
  ctx.fillStyle = BACKGROUND;
  ctx.fillRect(left, top, right - left, bottom - top);

  const x0 = Math.max(0, Math.floor(cam.worldX(0) / GRID_STEP) * GRID_STEP);
  const x1 = Math.min(worldW, cam.worldX(cam.width));
  const y0 = Math.max(0, Math.floor(cam.worldY(0) / GRID_STEP) * GRID_STEP);
  const y1 = Math.min(worldH, cam.worldY(cam.height));
  ctx.strokeStyle = GRID;
  ctx.lineWidth = 1;
  ctx.beginPath();
  // Too dense to read when zoomed far out: then the grid is left out.
  if (GRID_STEP * cam.scale >= 6) {
    for (let x = x0; x <= x1; x += GRID_STEP) {
      const sx = Math.round(cam.screenX(x)) + 0.5;
      ctx.moveTo(sx, Math.max(0, top));
      ctx.lineTo(sx, Math.min(cam.height, bottom));
    }
    for (let y = y0; y <= y1; y += GRID_STEP) {
      const sy = Math.round(cam.screenY(y)) + 0.5;
      ctx.moveTo(Math.max(0, left), sy);
      ctx.lineTo(Math.min(cam.width, right), sy);
    }
  }
  ctx.stroke();
  ctx.strokeStyle = BORDER;
  ctx.lineWidth = 2;
  ctx.strokeRect(left, top, right - left, bottom - top);
}

const GHOST_STROKE = "rgba(255,255,255,0.55)";

/**
 * Dashed outlines at the raw server positions (the "server ghosts" toggle), drawn next to the
 * smoothed entities; `drawGhost` traces one player's outline with the stroke style set here.
 */
export function drawGhosts<P>(ctx: CanvasRenderingContext2D, players: ReadonlyMap<number, P>, drawGhost: (p: P) => void): void {
  ctx.strokeStyle = GHOST_STROKE;
  ctx.lineWidth = 1.5;
  ctx.setLineDash(GHOST_DASH);
  players.forEach(drawGhost);
  ctx.setLineDash(NO_DASH);
}
