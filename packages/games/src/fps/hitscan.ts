/**
 * 2D hitscan geometry: plain functions over numbers (no vectors allocated), used on the shot
 * path and by the tracer audience test.
 */

/**
 * Distance along a ray from (ox, oy) in unit direction (dx, dy) to the first point of the
 * circle (cx, cy, r), or -1 when the ray misses it within `maxT`. A ray starting inside the
 * circle hits at 0 (point-blank).
 */
export function rayCircle(ox: number, oy: number, dx: number, dy: number, cx: number, cy: number, r: number, maxT: number): number {
  const fx = ox - cx;
  const fy = oy - cy;
  const c = fx * fx + fy * fy - r * r;
  if (c <= 0) return 0;
  const b = fx * dx + fy * dy;
  // Outside and pointing away: no hit.
  if (b >= 0) return -1;
  const disc = b * b - c;
  if (disc < 0) return -1;
  const t = -b - Math.sqrt(disc);
  return t <= maxT ? t : -1;
}

/**
 * Distance along a ray from (ox, oy) in unit direction (dx, dy), starting inside the square
 * [lo, hi]², to where it leaves the square.
 */
export function rayExitSquare(ox: number, oy: number, dx: number, dy: number, lo: number, hi: number): number {
  let t = Infinity;
  if (dx > 0) t = Math.min(t, (hi - ox) / dx);
  else if (dx < 0) t = Math.min(t, (lo - ox) / dx);
  if (dy > 0) t = Math.min(t, (hi - oy) / dy);
  else if (dy < 0) t = Math.min(t, (lo - oy) / dy);
  return t > 0 ? t : 0;
}

/** Squared distance from point (px, py) to the segment (ax, ay)-(bx, by). */
export function segmentPointDist2(ax: number, ay: number, bx: number, by: number, px: number, py: number): number {
  const sx = bx - ax;
  const sy = by - ay;
  const len2 = sx * sx + sy * sy;
  let u = len2 > 0 ? ((px - ax) * sx + (py - ay) * sy) / len2 : 0;
  if (u < 0) u = 0;
  else if (u > 1) u = 1;
  const qx = ax + u * sx - px;
  const qy = ay + u * sy - py;
  return qx * qx + qy * qy;
}
