/**
 * Keeps a canvas's backing store at its CSS size times the device pixel ratio (sharp on HiDPI
 * screens) and sets the context's transform so drawing code works in CSS pixels. Cheap to call
 * every frame: it only touches the canvas when the size changed.
 */
export class Viewport {
  /** Size in CSS pixels. */
  width = 0;
  height = 0;
  private dpr = 0;

  constructor(
    readonly canvas: HTMLCanvasElement,
    readonly ctx: CanvasRenderingContext2D,
  ) {}

  /** Matches the canvas to its current layout size; call at the start of each frame. */
  fit(): void {
    const w = this.canvas.clientWidth;
    const h = this.canvas.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    if (w === this.width && h === this.height && dpr === this.dpr) return;
    this.width = w;
    this.height = h;
    this.dpr = dpr;
    this.canvas.width = Math.max(1, Math.round(w * dpr));
    this.canvas.height = Math.max(1, Math.round(h * dpr));
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
}
