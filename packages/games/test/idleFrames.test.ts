import { describe, expect, it } from "vitest";
import { TestRoom } from "@tikron/core/testing";
import { gameDefinitions } from "../src";
import { fpsTypes, movementTypes } from "../src/schemas";

// Test clients confirm what they read with receipts like every real client (a client that never
// confirms is sent less: reliability backpressure), so what they receive is what a page would.
describe("idle frames: what an idle room costs per client", () => {
  for (const [kind, types] of [
    ["movement", movementTypes],
    ["fps", fpsTypes],
  ] as const) {
    it(`${kind}: 10 players standing still get about 4 header-only frames a second, a few bytes each`, () => {
      const t = new TestRoom(gameDefinitions[kind]!, types);
      const players = Array.from({ length: 10 }, (_, i) => t.join(`p${i}`));
      t.advance(2000); // everyone has the initial state
      const before = players.map((p) => p.frames.length);
      const seconds = 60;
      t.advance(seconds * 1000);
      const idle = players.flatMap((p, i) => p.frames.slice(before[i]));
      const bytesPerClientSec = idle.reduce((a, f) => a + f.bytes, 0) / players.length / seconds;
      const framesPerClientSec = idle.length / players.length / seconds;
      // Printed for PERFORMANCE.md ("Idle frames"); asserted so a regression fails.
      console.log(`${kind}: idle client receives ${framesPerClientSec.toFixed(2)} frames/s, ${bytesPerClientSec.toFixed(1)} B/s of payload`);
      // One per idleFrameMs (250), on the first flush at or after it: 4/s at 50 ms ticks, 1000/264 at 33.
      const tickMs = t.room.options.tickMs;
      expect(framesPerClientSec).toBeGreaterThanOrEqual(1000 / (250 + tickMs) - 0.01);
      expect(framesPerClientSec).toBeLessThanOrEqual(4.01);
      expect(bytesPerClientSec / framesPerClientSec).toBeLessThanOrEqual(12);
    });
  }
});
