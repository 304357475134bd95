/**
 * The bots' brain (src/client/bot.ts): its choices one by one, and bots playing the real game in a
 * TestRoom, as `npm run bots` plays it under `wrangler dev`.
 */
import { TestRoom } from "@tikron/core/testing";
import { describe, expect, it } from "vitest";
import { TagBrain, type Seen } from "../src/client/bot";
import { games } from "../src/server/tagGame";
import { TAG_KIND, TAG_RULES, tagGame } from "../src/shared/tag";

/** A seeded random source, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const mid = TAG_RULES.world / 2;

describe("the bots' brain", () => {
  it("chases the nearest player when it is 'it'", () => {
    const me: Seen = { x: mid, y: mid, it: true };
    const near: Seen = { x: mid - 100, y: mid + 50, it: false };
    const far: Seen = { x: mid + 300, y: mid, it: false };
    expect(new TagBrain().think(me, [me, far, near], 0)).toEqual({ dx: -1, dy: 1 });
  });

  it("runs from 'it' when it comes close, and along a wall instead of into it", () => {
    const it: Seen = { x: mid, y: mid, it: true };
    const me: Seen = { x: mid + 60, y: mid - 60, it: false };
    expect(new TagBrain().think(me, [it, me], 0)).toEqual({ dx: 1, dy: -1 });
    const cornered: Seen = { x: TAG_RULES.world - 5, y: mid, it: false };
    const chaser: Seen = { x: TAG_RULES.world - 80, y: mid, it: true };
    expect(new TagBrain().think(cornered, [chaser, cornered], 0)).toEqual({ dx: 0, dy: 1 });
  });

  it("wanders when 'it' is far: one direction for a while, never into a wall", () => {
    const brain = new TagBrain(seeded(7));
    const me: Seen = { x: mid, y: mid, it: false };
    const it: Seen = { x: 10, y: 10, it: true };
    const first = brain.think(me, [me, it], 0);
    expect(brain.think(me, [me, it], 1_000)).toEqual(first);
    const atWall: Seen = { x: 3, y: mid, it: false };
    for (let t = 0; t < 20; t++) expect(brain.think(atWall, [atWall, it], t * 2_000).dx).toBe(1);
  });

  it("plays the game: four bots in a room tag each other within 20 seconds", () => {
    const room = new TestRoom(games[TAG_KIND]!, tagGame);
    const random = seeded(42);
    const bots = ["b1", "b2", "b3", "b4"].map((name) => ({ client: room.join(name), brain: new TagBrain(random) }));
    room.advance(100);
    for (let t = 0; t < 20_000; t += 100) {
      for (const { client, brain } of bots) {
        const yours = client.events.findLast((e) => e.kind === "youAre");
        const me = yours?.kind === "youAre" ? client.state.get(yours.entity)?.record : undefined;
        if (me) client.input(brain.think(me, [...client.state.values()].map((e) => e.record), room.time));
      }
      room.advance(100);
    }
    expect((room.stats().game as { tags?: number }).tags).toBeGreaterThan(0);
  });
});
