import { AGAR_RULES, FPS_RULES } from "@tikron/games/schemas";

/**
 * The simulation constants the page needs for prediction and drawing, taken from the rooms'
 * own rule tables (exported by `@tikron/games/schemas`, which carries no room logic).
 */
export const AGAR = AGAR_RULES;

/** fps: movement, weapon and arena rules. */
export const FPS = { ...FPS_RULES, defaultWorld: FPS_RULES.world } as const;
