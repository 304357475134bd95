/** Offsets within an entity row of the world's store. */
export const EntityRow = {
  /** Type index, or -1 for a free slot. */
  Type: 0,
  /** Spawn serial (≥ 1), bumped on every spawn into the slot. */
  Serial: 1,
  /** Epoch of the last change of any field. */
  ChangedAt: 2,
  FieldCount: 3,
  /** First of `maxFields` values: quantized scalars, change epochs of strings and maps. */
  Values: 4,
} as const;
