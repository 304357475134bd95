import type { IdBuffer } from "./idBuffer";

/**
 * A set of entities with 2D positions (or none: "global" entities, visible from everywhere)
 * that answers "who is within radius r of (x, y)". Ids are non-negative integers chosen by the
 * caller, typically dense slot numbers.
 *
 * Visibility is exactly `dx*dx + dy*dy <= r*r` (inclusive at the radius) with `dx = ex - x`,
 * `dy = ey - y`, plus every global entity. Entities at non-finite coordinates are nowhere: never
 * returned by a circle query. A query with a non-finite center or a negative/NaN radius returns
 * only the globals.
 */
export interface AoiIndex {
  /** Adds a positioned entity. The id must not be present. */
  insert(id: number, x: number, y: number): void;
  /** Adds an entity visible to every query. The id must not be present. */
  insertGlobal(id: number): void;
  /** Moves a positioned entity (no effect on globals). */
  move(id: number, x: number, y: number): void;
  /** Removes an entity; a no-op for an absent id. */
  remove(id: number): void;
  /** True when `id` is in the index. */
  has(id: number): boolean;
  /** Clears `out`, then fills it with the visible entities (unordered). Returns `out.length`. */
  queryCircle(x: number, y: number, radius: number, out: IdBuffer): number;
  /** Clears `out`, then fills it with the global entities only. Returns `out.length`. */
  queryGlobals(out: IdBuffer): number;
}
