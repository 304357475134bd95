import { defineSchema, quant, string, u8, varuint } from "@tikron/protocol";
import { agarInputs } from "./agarInput";

/** Largest agar world edge the schema can carry. */
export const AGAR_MAX_WORLD = 16_384;

/** A world coordinate to 1/16 unit: one declaration for every `x` and `y` (fields are immutable). */
const coordinate = quant(0, AGAR_MAX_WORLD, 1 / 16);

/**
 * The `agar` entity schema and its declared input ({@link agarInputs}), shared by the room
 * (encode, read inputs), the client SDK and the load tool (decode, write inputs). Positions to
 * 1/16 unit; radius to 1/8.
 */
export const agarSchema = defineSchema(
  {
    player: {
      /** Owner's player id (from the welcome), so a client finds its own cell exactly. */
      pid: varuint(),
      x: coordinate,
      y: coordinate,
      r: quant(0, 512, 1 / 8),
      name: string(16),
      score: varuint(),
    },
    orb: {
      x: coordinate,
      y: coordinate,
      color: u8(),
    },
  },
  { inputs: agarInputs },
);
