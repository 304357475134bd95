import type { Camera } from "./camera";

/** Side of the minimap (CSS pixels) and its distance from the canvas corner. */
const SIZE = 150;
const MARGIN = 12;
const BACK = "rgba(8,10,16,0.75)";
const EDGE = "rgba(255,255,255,0.35)";
const VIEW = "rgba(255,255,255,0.5)";
const OTHER = "#ffb347";
const SELF = "#2ee6a8";

/**
 * Draws a square minimap of a `world` × `world` arena in the bottom-right corner: the area on
 * screen, every player the latest state holds (`eachPlayer` calls `dot` for each) and the own
 * position. Shows where the others are when they are off screen.
 */
export function drawMinimap(
  ctx: CanvasRenderingContext2D,
  cam: Camera,
  world: number,
  self: { x: number; y: number } | null,
  eachPlayer: (dot: (x: number, y: number) => void) => void,
): void {
  const left = cam.width - SIZE - MARGIN;
  const top = cam.height - SIZE - MARGIN;
  const k = SIZE / world;
  ctx.fillStyle = BACK;
  ctx.fillRect(left, top, SIZE, SIZE);
  ctx.strokeStyle = EDGE;
  ctx.lineWidth = 1;
  ctx.strokeRect(left + 0.5, top + 0.5, SIZE - 1, SIZE - 1);

  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, SIZE, SIZE);
  ctx.clip();
  ctx.strokeStyle = VIEW;
  ctx.strokeRect(left + cam.worldX(0) * k, top + cam.worldY(0) * k, (cam.width / cam.scale) * k, (cam.height / cam.scale) * k);
  ctx.fillStyle = OTHER;
  mmLeft = left;
  mmTop = top;
  mmScale = k;
  mmCtx = ctx;
  eachPlayer(dot);
  mmCtx = null;
  if (self) {
    ctx.fillStyle = SELF;
    ctx.beginPath();
    ctx.arc(left + self.x * k, top + self.y * k, 3.5, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.restore();
}

// The dot callback is created once; these carry the current map's placement into it.
let mmCtx: CanvasRenderingContext2D | null = null;
let mmLeft = 0;
let mmTop = 0;
let mmScale = 1;

function dot(x: number, y: number): void {
  const c = mmCtx!;
  c.fillRect(mmLeft + x * mmScale - 1.5, mmTop + y * mmScale - 1.5, 3, 3);
}
