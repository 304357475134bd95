/** A point in world units. */
export interface Point {
  x: number;
  y: number;
}

/** Distance between two positions: the prediction error the overlay shows. */
export function planarDistance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** Signed smallest difference a − b of two angles (radians); NaN when either is unknown. */
export function angleDelta(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  else if (d < -Math.PI) d += 2 * Math.PI;
  return d;
}
