/**
 * World-to-screen mapping of a top-down view: a centre in world units, a scale in CSS pixels
 * per world unit, and the canvas size. Mutated in place every frame (no allocation).
 */
export class Camera {
  /** World point at the centre of the screen. */
  x = 0;
  y = 0;
  /** CSS pixels per world unit. */
  scale = 1;
  /** Canvas size in CSS pixels. */
  width = 1;
  height = 1;

  /** Centres on (x, y) and fits `span` world units across the shorter screen side. */
  follow(x: number, y: number, span: number, width: number, height: number): void {
    this.x = x;
    this.y = y;
    this.width = width;
    this.height = height;
    this.scale = Math.min(width, height) / Math.max(1, span);
  }

  screenX(wx: number): number {
    return (wx - this.x) * this.scale + this.width / 2;
  }

  screenY(wy: number): number {
    return (wy - this.y) * this.scale + this.height / 2;
  }

  worldX(sx: number): number {
    return (sx - this.width / 2) / this.scale + this.x;
  }

  worldY(sy: number): number {
    return (sy - this.height / 2) / this.scale + this.y;
  }

  /** True when a circle of world radius `r` at (wx, wy) may be on screen. */
  visible(wx: number, wy: number, r: number): boolean {
    const sx = this.screenX(wx);
    const sy = this.screenY(wy);
    const sr = r * this.scale;
    return sx + sr >= 0 && sy + sr >= 0 && sx - sr <= this.width && sy - sr <= this.height;
  }
}
