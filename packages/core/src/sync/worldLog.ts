/**
 * What a `SyncWorld`'s feed hears of it between flushes, in the order it happens: every
 * change of its spatial grid (spawns, despawns, moves) and every viewer it forgets. The grid's
 * query results come out in an order its history decides (members of a cell in arrival order,
 * cells in first-occupied order), and the encoder writes enters and updates in that order, so a
 * mirror of the world replays this history, not just its outcome.
 *
 * @internal Implemented by `WorldFeed`; a world has at most one.
 */
export interface WorldLog {
  /** Entity `id` was spawned (its type and serial are in the world's row) and put in the grid at (x, y), or as global. */
  spawned(id: number, global: boolean, x: number, y: number): void;
  /** Entity `id` was despawned and taken out of the grid. */
  despawned(id: number): void;
  /** The grid moved entity `id` to (x, y). */
  moved(id: number, x: number, y: number): void;
  /** The viewer of `playerId` was forgotten. */
  viewerRemoved(playerId: number): void;
}
