import { defineSchema, quant, string } from "@tikron/protocol";
import { movementInputs } from "./movementInput";

/** Largest movement world edge the schema can carry. */
export const MOVEMENT_MAX_WORLD = 16_384;

/**
 * The `movement` entity schema: one entity per player, nothing else. Positions to 1/16 unit,
 * so a player walking at full speed changes a few quantization steps per flush and each update
 * costs 1-2 bytes per axis. Its input is declared ({@link movementInputs}).
 */
export const movementSchema = defineSchema(
  {
    player: {
      x: quant(0, MOVEMENT_MAX_WORLD, 1 / 16),
      y: quant(0, MOVEMENT_MAX_WORLD, 1 / 16),
      name: string(16),
    },
  },
  { inputs: movementInputs },
);
