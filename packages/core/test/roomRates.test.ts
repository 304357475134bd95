/**
 * A game changes its room's rates at run time (`ctx.setRates`): the loop moves onto the new
 * tick grid from that instant, flushes follow the new cadence, every connected client is told
 * (CADENCE) and later joiners are welcomed with the new rates; a bad rate changes nothing.
 */
import { describe, expect, it } from "vitest";
import type { GameContext, GameDefinition } from "../src";
import { TestRoom } from "../src/testing";
import { DotsGame, TallyGame, dotsTypes, tallyTypes } from "./testing/games";

/** A dots game whose context the test can reach, and that can change rates from inside a tick. */
class RatedDots extends DotsGame {
  c!: GameContext;
  ticks: number[] = [];
  onTick: ((now: number) => void) | null = null;
  override init(ctx: GameContext): void {
    super.init(ctx);
    this.c = ctx;
  }
  override tick(now: number): void {
    this.ticks.push(now);
    const f = this.onTick;
    this.onTick = null;
    f?.(now);
  }
}

const rated = (): GameDefinition => ({ kind: "dots", defaults: { tickMs: 50, syncIntervalMs: 50, cap: 4 }, create: () => new RatedDots() });

/** Gaps between consecutive frame times a client received from index `from` on. */
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe("ctx.setRates", () => {
  it("moves ticks and flushes to the new rates from that instant, tells every client, welcomes later ones with them", () => {
    const room = new TestRoom(rated(), dotsTypes);
    const game = room.game as RatedDots;
    const ann = room.join("ann");
    room.advance(200);
    expect(game.ticks).toEqual([50, 100, 150, 200]);
    room.advance(10);

    // 20 ms ticks; the 50 ms sync interval becomes three ticks (60 ms), never faster than asked.
    expect(game.c.setRates({ tickMs: 20 })).toEqual({ tickMs: 20, syncIntervalMs: 60 });
    expect(ann.messages.at(-1)).toEqual({ kind: "cadence", tickMs: 20, syncIntervalMs: 60 });
    expect(ann.welcome).toMatchObject({ tickMs: 20, syncIntervalMs: 60 });
    const framesBefore = ann.frames.length;
    ann.input({ dx: 1 }); // a change every flush would show: keep the view moving
    room.advance(230);
    expect(game.ticks.slice(4)).toEqual([230, 250, 270, 290, 310, 330, 350, 370, 390, 410, 430]);
    const after = ann.frames.slice(framesBefore).map((f) => f.time);
    expect(after.length).toBeGreaterThan(0);
    for (const g of gaps(after)) expect(g % 60).toBe(0);
    expect(room.stats()).toMatchObject({ tickMs: 20, syncIntervalMs: 60 });

    const bob = room.join("bob");
    expect(bob.welcome).toMatchObject({ tickMs: 20, syncIntervalMs: 60 });
    // Only the sync interval: ticks stay, frames every 5 ticks.
    expect(game.c.setRates({ syncIntervalMs: 100 })).toEqual({ tickMs: 20, syncIntervalMs: 100 });
    for (const p of [ann, bob]) expect(p.messages.at(-1)).toEqual({ kind: "cadence", tickMs: 20, syncIntervalMs: 100 });
    const bobBefore = bob.frames.length;
    ann.input({ dx: 1 }, { dx: 1 }, { dx: 1 }, { dx: 1 }, { dx: 1 });
    room.advance(500);
    for (const g of gaps(bob.frames.slice(bobBefore).map((f) => f.time))) expect(g % 100).toBe(0);
  });

  it("from inside a tick: the next tick is one new tick length later", () => {
    const room = new TestRoom(rated(), dotsTypes);
    const game = room.game as RatedDots;
    room.join("ann");
    game.onTick = () => game.c.setRates({ tickMs: 30, syncIntervalMs: 30 });
    room.advance(200);
    expect(game.ticks).toEqual([50, 80, 110, 140, 170, 200]);
  });

  it("refuses a rate outside the protocol's ranges and changes nothing", () => {
    const room = new TestRoom(rated(), dotsTypes);
    const game = room.game as RatedDots;
    const ann = room.join("ann");
    const sent = ann.messages.length;
    for (const bad of [{ tickMs: 2 }, { tickMs: 20.5 }, { syncIntervalMs: 6000 }, { tickMs: Number.NaN }]) {
      expect(() => game.c.setRates(bad)).toThrow(RangeError);
    }
    room.advance(100);
    expect(game.ticks).toEqual([50, 100]);
    expect(ann.messages.slice(sent).some((m) => m.kind === "cadence")).toBe(false);
    expect(room.stats()).toMatchObject({ tickMs: 50, syncIntervalMs: 50 });
    // The same rates again are no change: nobody is told.
    expect(game.c.setRates({ tickMs: 50 })).toEqual({ tickMs: 50, syncIntervalMs: 50 });
    expect(ann.messages.slice(sent).some((m) => m.kind === "cadence")).toBe(false);
  });

  it("a JSON room tells its clients in JSON", () => {
    let tallyCtx!: GameContext;
    const def: GameDefinition = {
      kind: "tally",
      defaults: { cap: 3 },
      create: () =>
        new (class extends TallyGame {
          override init(c: GameContext): void {
            super.init(c);
            tallyCtx = c;
          }
        })(),
    };
    const room = new TestRoom(def, tallyTypes);
    const ann = room.join("ann");
    tallyCtx.setRates({ tickMs: 100, syncIntervalMs: 100 });
    expect(ann.messages.at(-1)).toEqual({ kind: "cadence", tickMs: 100, syncIntervalMs: 100 });
    expect(room.stats()).toMatchObject({ tickMs: 100, syncIntervalMs: 100 });
  });
});
