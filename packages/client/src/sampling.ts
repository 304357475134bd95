import { checkOption } from "./timing";

/**
 * How entity fields are blended between snapshots, and what a sample did. Shared by the
 * per-entity history (`EntityTrack`) and the {@link SnapshotBuffer} that owns the layout.
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

/**
 * A field's blend rule as one number, so the sampling loop reads one typed array and branches
 * on numbers, not strings: the full-turn length for `angle` fields, {@link LINEAR} or
 * {@link STEP} otherwise.
 */
export type BlendCode = number;
/** Blend code of `linear` fields. */
export const LINEAR: BlendCode = 0;
/** Blend code of `step` fields. */
export const STEP: BlendCode = -1;

/**
 * The blend code of a field (a bare name is `linear`; an angle's period defaults to 2π). A
 * period that is not a finite number > 0 is a RangeError: it would blend to NaN, or read as
 * another code.
 */
export function blendCode(field: string | FieldSpec): BlendCode {
  if (typeof field === "string") return LINEAR;
  return field.interp === "angle" ? (checkOption("period", field.period, true) ?? 2 * Math.PI) : field.interp === "step" ? STEP : LINEAR;
}

/**
 * The change from `a` to `b` under a blend code: b − a for linear fields, the short way round
 * the circle for angles, none for steps (they keep the value they blend from).
 */
export function blendDelta(a: number, b: number, code: BlendCode): number {
  if (code === LINEAR) return b - a;
  if (code === STEP) return 0;
  const d = (b - a) % code;
  return d - code * Math.round(d / code);
}
