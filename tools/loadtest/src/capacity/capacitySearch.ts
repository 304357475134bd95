/**
 * Which player counts the capacity sweep tries: grow (fixed steps or doubling) until a point
 * fails or the upper bound is reached, then bisect between the highest pass and the lowest
 * failure down to a resolution. Pure: the caller runs each point and records its verdict.
 */

/** How the search grows before the first failure. */
export interface CapacityPlan {
  /** First point (players). */
  start: number;
  /** "step": start, start+step, …; "double": start, 2·start, 4·start, … */
  growth: "step" | "double";
  step: number;
  /** Stop bisecting once the lowest failure is at most this far above the highest pass. */
  resolution: number;
  /** Never try more players than this. */
  max: number;
}

/** Where the search stands: the highest passing and lowest failing counts seen so far. */
export class CapacitySearch {
  private pass = 0;
  private fail: number | null = null;
  private last: number | null = null;
  private readonly tried = new Set<number>();

  constructor(readonly plan: CapacityPlan) {
    if (!(plan.start >= 1 && plan.step >= 1 && plan.resolution >= 1 && plan.max >= plan.start)) {
      throw new Error(`bad capacity plan: ${JSON.stringify(plan)} (need start, step, resolution >= 1 and max >= start)`);
    }
  }

  /** The next player count to try, or null when the search is done. */
  next(): number | null {
    const p = this.plan;
    if (this.fail === null) {
      // Growing: the next step above the last point, clamped to the bound.
      if (this.last === null) return p.start;
      if (this.last >= p.max) return null;
      const grown = p.growth === "double" ? this.last * 2 : this.last + p.step;
      return Math.min(grown, p.max);
    }
    if (this.fail - this.pass <= p.resolution) return null;
    // Bisect on the resolution grid above the highest pass.
    const steps = Math.floor((this.fail - this.pass) / p.resolution);
    const mid = this.pass + Math.max(1, Math.floor(steps / 2)) * p.resolution;
    if (mid >= this.fail || this.tried.has(mid)) return null;
    return mid;
  }

  /** Records a point's verdict. */
  record(players: number, passed: boolean): void {
    this.tried.add(players);
    this.last = players;
    if (passed) this.pass = Math.max(this.pass, players);
    else this.fail = this.fail === null ? players : Math.min(this.fail, players);
  }

  /** Highest passing count (0 when none passed) and lowest failing count (null when none failed). */
  result(): { capacity: number; lowestFailure: number | null; hitMax: boolean } {
    return { capacity: this.pass, lowestFailure: this.fail, hitMax: this.fail === null && this.last !== null && this.last >= this.plan.max };
  }
}
