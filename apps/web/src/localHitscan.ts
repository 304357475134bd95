import { rayCircle, rayExitSquare } from "@tikron/games/schemas";

/**
 * Where a shot's line ends as the shooter sees it: the first circle (player) the ray meets,
 * else the weapon's range, else the arena wall. This is only feedback drawn at the click; the
 * server rewinds the targets to the shot's time and decides what was really hit, with the same
 * ray geometry (`rayCircle`, `rayExitSquare` from the fps room).
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
    this.t = Math.min(range, rayExitSquare(ox, oy, this.dx, this.dy, 0, world));
  }

  /** Offers a target circle; keeps it when the ray meets it before the current end. */
  target(id: number, cx: number, cy: number, r: number): void {
    const t = rayCircle(this.ox, this.oy, this.dx, this.dy, cx, cy, r, this.t);
    if (t >= 0 && t < this.t) {
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
