/**
 * The page's copy of the rooms' constants (apps/web/src/gameRules.ts) must match the rooms:
 * prediction with a stale speed would be corrected on every frame.
 */
import { describe, expect, it } from "vitest";
import { AgarGame } from "../../../../packages/games/src/agar/agarGame";
import { AGAR_RULES } from "../../../../packages/games/src/agar/agarRules";
import { FPS_RULES } from "../../../../packages/games/src/fps/fpsRules";
import { AGAR, FPS } from "../../src/gameRules";

describe("the page's game constants", () => {
  it("match agar's rules and default world", () => {
    const { defaultWorld, ...rules } = AGAR;
    for (const [key, value] of Object.entries(rules)) expect([key, AGAR_RULES[key as keyof typeof AGAR_RULES]]).toEqual([key, value]);
    expect(new AgarGame({ orbs: 0 }).config.world).toBe(defaultWorld);
  });

  it("match fps's rules and default world", () => {
    const { defaultWorld, ...rules } = FPS;
    for (const [key, value] of Object.entries(rules)) expect([key, FPS_RULES[key as keyof typeof FPS_RULES]]).toEqual([key, value]);
    expect(FPS_RULES.world).toBe(defaultWorld);
  });
});
