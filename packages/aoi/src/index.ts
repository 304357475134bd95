/**
 * Area of interest: which entities each viewer can see, and how often each one is refreshed.
 * No dependencies; ids are caller-chosen non-negative integers.
 *
 * @module @tikron/aoi
 */
export { IdBuffer } from "./idBuffer";
export type { AoiIndex } from "./aoiIndex";
export { GridAoi } from "./gridAoi";
export { NaiveAoi } from "./naiveAoi";
export { PriorityTiers, type PriorityTier } from "./priorityTiers";
