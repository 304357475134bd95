import type { BinaryWriter } from "../binaryWriter";
import { SECTION_ENTERS, SECTION_LEAVES, SECTION_UPDATES } from "../wireCodes";

/**
 * Layout of a delta body (the FRAME's delta section, i.e. the rest of the frame after ack and
 * events). One byte of section flags (never 0: an empty delta is not sent at all), then the
 * present sections in this order, each as `varuint count` (≥ 1) and its items:
 *
 * - leaves:  `varuint id`
 * - enters:  `varuint id`, `varuint typeIndex`, every field in declaration order, whole
 *            (an enter for an id the client already holds replaces that entity)
 * - updates: `varuint id`, `varuint changedMask` (bit i = field i, ≥ 1), the changed fields in
 *            declaration order: scalars as a difference from the client's current value
 *            (see `writeScalarDelta`), strings whole, maps as a change (see `writeMapChangeHeader`)
 *
 * Leaves come first so a client never holds an entity the server already forgot.
 */
export const DeltaSection = {
  /** A section of entity ids that left the view. */
  Leaves: SECTION_LEAVES,
  /** A section of entities that entered, with full records. */
  Enters: SECTION_ENTERS,
  /** A section of changed fields of entities already in view. */
  Updates: SECTION_UPDATES,
} as const;

/** Largest entity id on the wire; ids are dense slot numbers, far below this in practice. */
export const MAX_ENTITY_ID = 0x3fffffff;

/** Writes the section flags byte for a body with these section sizes (call only if any is > 0). */
export function writeDeltaSections(w: BinaryWriter, leaves: number, enters: number, updates: number): void {
  w.u8((leaves > 0 ? SECTION_LEAVES : 0) | (enters > 0 ? SECTION_ENTERS : 0) | (updates > 0 ? SECTION_UPDATES : 0));
}
