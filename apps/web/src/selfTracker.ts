/**
 * Finds the local player's own entity in the view.
 *
 * The agar schema has no owner field, and the welcome's player id is not an entity id, so the
 * own cell is recognised by the name sent in hello. Names are not unique; among several
 * candidates the one nearest the view's centre wins, because the server centres each client's
 * area of interest on its own cell (the centre is estimated from the visible non-player
 * entities, which are spread around it). Once chosen, an entity is kept while it stays a
 * candidate, so two equal names cannot make the camera flip between cells.
 */
export class SelfTracker {
  /** Entity id of the own cell, or -1 while unknown. */
  id = -1;
  private cx = 0;
  private cy = 0;
  private hints = 0;
  // Candidates of the current pass, in reused arrays (one pass per state frame).
  private readonly ids: number[] = [];
  private readonly xs: number[] = [];
  private readonly ys: number[] = [];

  /** Starts a pass over the view: then {@link addHint}/{@link addCandidate} for each entity, then {@link end}. */
  begin(): void {
    this.cx = this.cy = this.hints = 0;
    this.ids.length = this.xs.length = this.ys.length = 0;
  }

  /** A visible entity that is not a player: its position hints at the view's centre. */
  addHint(x: number, y: number): void {
    this.cx += x;
    this.cy += y;
    this.hints++;
  }

  /** A player entity carrying the own name. */
  addCandidate(id: number, x: number, y: number): void {
    this.ids.push(id);
    this.xs.push(x);
    this.ys.push(y);
  }

  /** Ends the pass and returns the own entity id (-1 when none is visible). */
  end(): number {
    const n = this.ids.length;
    if (n === 0) return (this.id = -1);
    if (this.ids.includes(this.id)) return this.id;
    if (n === 1 || this.hints === 0) return (this.id = this.ids[0]!);
    const mx = this.cx / this.hints;
    const my = this.cy / this.hints;
    let best = 0;
    let bestD2 = Infinity;
    for (let i = 0; i < n; i++) {
      const d2 = (this.xs[i]! - mx) ** 2 + (this.ys[i]! - my) ** 2;
      if (d2 < bestD2) {
        bestD2 = d2;
        best = i;
      }
    }
    return (this.id = this.ids[best]!);
  }

  /** Forgets the chosen entity (a new join: entity ids start over). */
  reset(): void {
    this.id = -1;
  }
}
