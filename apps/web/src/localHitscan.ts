/**
 * Where a shot's line ends as the shooter sees it: the first circle (player) the ray meets,
 * else the weapon's range, else the arena wall. This is only feedback drawn at the click; the
 * server rewinds the targets to the shot's time and decides what was really hit.
 */
export class LocalHitscan {
  /** Distance along the ray to the end of the line, after {@link begin} / {@link target}. */
  t = 0;
  /** Player id of the circle hit (0 when none). */
  hit = 0;
  private ox = 0;
  private oy = 0;
  private dx = 1;
  private dy = 0;

  /** Starts a shot from (ox, oy) at `angle`, reaching at most `range` inside the square [0, world]². */
  begin(ox: number, oy: number, angle: number, range: number, world: number): void {
    this.ox = ox;
    this.oy = oy;
    this.dx = Math.cos(angle);
    this.dy = Math.sin(angle);
    this.hit = 0;
    this.t = Math.min(range, exitSquare(ox, oy, this.dx, this.dy, world));
  }

  /** Offers a target circle; keeps it when the ray meets it before the current end. */
  target(id: number, cx: number, cy: number, r: number): void {
    const fx = this.ox - cx;
    const fy = this.oy - cy;
    const c = fx * fx + fy * fy - r * r;
    let t: number;
    if (c <= 0) t = 0;
    else {
      const b = fx * this.dx + fy * this.dy;
      if (b >= 0) return;
      const disc = b * b - c;
      if (disc < 0) return;
      t = -b - Math.sqrt(disc);
    }
    if (t < this.t) {
      this.t = t;
      this.hit = id;
    }
  }

  /** End point of the line. */
  get x1(): number {
    return this.ox + this.dx * this.t;
  }

  get y1(): number {
    return this.oy + this.dy * this.t;
  }
}

function exitSquare(ox: number, oy: number, dx: number, dy: number, world: number): number {
  let t = Infinity;
  if (dx > 0) t = Math.min(t, (world - ox) / dx);
  else if (dx < 0) t = Math.min(t, -ox / dx);
  if (dy > 0) t = Math.min(t, (world - oy) / dy);
  else if (dy < 0) t = Math.min(t, -oy / dy);
  return Math.max(0, t);
}
