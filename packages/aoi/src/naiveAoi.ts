import type { AoiIndex } from "./aoiIndex";
import type { IdBuffer } from "./idBuffer";

/**
 * The reference {@link AoiIndex}: a flat list scanned in full per query, O(viewers × entities)
 * per flush. Tests check the grid against it and the benchmark prices it.
 */
export class NaiveAoi implements AoiIndex {
  private readonly ids: number[] = [];
  private readonly xs: number[] = [];
  private readonly ys: number[] = [];
  private readonly global: boolean[] = [];
  private readonly pos = new Map<number, number>();

  insert(id: number, x: number, y: number): void {
    this.add(id, x, y, false);
  }

  insertGlobal(id: number): void {
    this.add(id, 0, 0, true);
  }

  private add(id: number, x: number, y: number, global: boolean): void {
    if (this.pos.has(id)) throw new Error(`entity ${id} is already in the index`);
    this.pos.set(id, this.ids.length);
    this.ids.push(id);
    this.xs.push(x);
    this.ys.push(y);
    this.global.push(global);
  }

  move(id: number, x: number, y: number): void {
    const i = this.pos.get(id);
    if (i === undefined || this.global[i]) return;
    this.xs[i] = x;
    this.ys[i] = y;
  }

  remove(id: number): void {
    const i = this.pos.get(id);
    if (i === undefined) return;
    const last = this.ids.length - 1;
    if (i !== last) {
      this.ids[i] = this.ids[last];
      this.xs[i] = this.xs[last];
      this.ys[i] = this.ys[last];
      this.global[i] = this.global[last];
      this.pos.set(this.ids[i], i);
    }
    this.ids.pop();
    this.xs.pop();
    this.ys.pop();
    this.global.pop();
    this.pos.delete(id);
  }

  /** True when `id` is in the index. */
  has(id: number): boolean {
    return this.pos.has(id);
  }

  queryCircle(x: number, y: number, radius: number, out: IdBuffer): number {
    out.clear();
    const centered = Number.isFinite(x) && Number.isFinite(y) && radius >= 0;
    const r2 = radius * radius;
    for (let i = 0; i < this.ids.length; i++) {
      if (this.global[i]) {
        out.push(this.ids[i], 0);
        continue;
      }
      if (!centered) continue;
      const ex = this.xs[i];
      const ey = this.ys[i];
      if (!Number.isFinite(ex) || !Number.isFinite(ey)) continue;
      const dx = ex - x;
      const dy = ey - y;
      const d2 = dx * dx + dy * dy;
      if (d2 <= r2) out.push(this.ids[i], d2);
    }
    return out.length;
  }

  queryGlobals(out: IdBuffer): number {
    out.clear();
    for (let i = 0; i < this.ids.length; i++) if (this.global[i]) out.push(this.ids[i], 0);
    return out.length;
  }
}
