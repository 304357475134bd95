/**
 * How entity fields are blended between snapshots, and what a sample did. Shared by the
 * per-entity history ({@link EntityTrack}) and the {@link SnapshotBuffer} that owns the layout.
 */

/**
 * How a field moves between two snapshots.
 * - `linear`: straight-line interpolation, velocity extrapolation.
 * - `angle`: like linear, but the short way round a circle of `period` (default 2π, radians).
 * - `step`: no blending; the older snapshot's value until the next one is reached (health,
 *   colours, animation states).
 */
export type FieldInterp = "linear" | "angle" | "step";

/** One numeric field of an entity, by position in the values array. */
export interface FieldSpec {
  /** Name, for {@link SnapshotBuffer.fieldIndex} lookups. */
  name: string;
  /** Blending rule; default `linear`. */
  interp?: FieldInterp;
  /** Length of a full turn for `angle` fields. Default 2π. */
  period?: number;
}

/** What a sample did to produce its value (see {@link SnapshotBuffer.sample}). */
export const SampleKind = {
  /** No value: unknown entity, not yet spawned at that time, or already gone. */
  None: 0,
  /** Blended between two snapshots, or exactly at one. */
  Interpolated: 1,
  /** Past the newest snapshot, projected along the last velocity (within the cap). */
  Extrapolated: 2,
  /** Past the extrapolation cap (or despawning): frozen. */
  Held: 3,
} as const;
/** One of the {@link SampleKind} values. */
export type SampleKind = (typeof SampleKind)[keyof typeof SampleKind];

// Blending rules as small integers, so the sampling loop branches on numbers, not strings.
/** `linear` fields. */
export const BLEND_LINEAR = 0;
/** `angle` fields. */
export const BLEND_ANGLE = 1;
/** `step` fields. */
export const BLEND_STEP = 2;

/**
 * The field layout in the form the sampling loop reads: specs with defaults filled in, plus
 * per-field blend codes and periods in typed arrays (no property lookups per field per frame).
 */
export class FieldLayout {
  /** Field specs with defaults applied, in values order. */
  readonly fields: readonly Required<FieldSpec>[];
  /** Number of fields. */
  readonly count: number;
  /** Blend rule per field (`BLEND_*`). */
  readonly blend: Uint8Array;
  /** Full-turn length per field (used by `angle` fields). */
  readonly period: Float64Array;

  constructor(fields: readonly (string | FieldSpec)[]) {
    this.fields = fields.map((f) => {
      const spec = typeof f === "string" ? { name: f } : f;
      return { name: spec.name, interp: spec.interp ?? "linear", period: spec.period ?? 2 * Math.PI };
    });
    this.count = this.fields.length;
    this.blend = new Uint8Array(this.count);
    this.period = new Float64Array(this.count);
    this.fields.forEach((f, i) => {
      this.blend[i] = f.interp === "linear" ? BLEND_LINEAR : f.interp === "angle" ? BLEND_ANGLE : BLEND_STEP;
      this.period[i] = f.period;
    });
  }
}

/** Signed difference b − a the short way round a circle of length `period`. */
export function shortDelta(a: number, b: number, period: number): number {
  let d = (b - a) % period;
  if (d > period / 2) d -= period;
  else if (d < -period / 2) d += period;
  return d;
}
