/**
 * What a game says to players besides the state: declared events (`ctx.emit` of an event
 * object, encoded by the room) and notices (`ctx.send` / `ctx.broadcast`), as the players read
 * them through the test harness's real decoders.
 */
import { defineGameTypes, defineSchema, quant } from "@tikron/protocol";
import { describe, expect, expectTypeOf, it } from "vitest";
import { detachedContext, type Game, type GameContext, type InputRejection } from "../src";
import { SyncWorld } from "../src/sync";
import { TestRoom } from "../src/testing";
import { DotsGame, dotsTypes, tallyDefinition, tallyTypes, type DotsEvent } from "./testing/games";

const dots = () => new TestRoom(new DotsGame(), dotsTypes);

describe("declared events", () => {
  it("ctx.emit takes the event object; every player in its audience reads it back typed", () => {
    const room = dots();
    const ann = room.join("ann");
    const bob = room.join("bob");
    ann.input({ dx: 1 });
    room.advance(50);
    const expected = { kind: "moved", player: ann.playerId, x: 510 };
    expect(ann.events.filter((e) => e.kind === "moved")).toEqual([expected]);
    expect(bob.events.filter((e) => e.kind === "moved")).toEqual([expected]);
    expectTypeOf(ann.events[0]!).toEqualTypeOf<DotsEvent>();
    // Addressed events reach only their audience.
    expect(bob.events.filter((e) => e.kind === "yours")).toEqual([{ kind: "yours", entity: expect.any(Number) }]);
  });

  it("quantizes like the state: a value between steps arrives on the step, one past the range at its end", () => {
    const room = dots();
    const ann = room.join("ann");
    room.game.ctx.emit({ kind: "moved", player: 1, x: 10.06 });
    room.game.ctx.emit({ kind: "moved", player: 1, x: 5000 });
    room.advance(50);
    expect(ann.events.filter((e) => e.kind === "moved").map((e) => (e as { x: number }).x)).toEqual([10, 1000]);
  });

  it("an undeclared kind is a TypeError in the game's own call; nothing is queued and the room plays on", () => {
    const room = dots();
    const ann = room.join("ann");
    expect(() => room.game.ctx.emit({ kind: "exploded" } as never)).toThrow(/event kind exploded is not declared/);
    ann.input({ dx: -1 });
    room.advance(50);
    expect(ann.events.map((e) => e.kind)).toEqual(["yours", "moved"]);
  });

  it("a room whose schema declares no events takes bytes of its own and refuses event objects", () => {
    const schema = defineSchema({ dot: { x: quant(0, 10, 1) } });
    const types = defineGameTypes<number>()({ kind: "bare", schema, encodeInput: (n, w) => w.reset().u8(n).toBytes() });
    class Bare implements Game<number> {
      readonly kind = "bare";
      readonly ticking = true;
      readonly world = new SyncWorld(schema, { tiers: [{ radius: 10, every: 1 }] });
      readonly sync = { mode: "binary" as const, encoder: this.world.encoder };
      ctx!: GameContext;
      init(ctx: GameContext): void {
        this.ctx = ctx;
      }
      join(): void {}
      leave(): void {}
      decodeInput(): number | InputRejection {
        return 0;
      }
      applyInput(): void {}
      tick(): void {}
    }
    const room = new TestRoom(new Bare(), types);
    const ann = room.join("ann");
    expect(() => room.game.ctx.emit({ kind: "x" })).toThrow(/declares no events/);
    room.game.ctx.emit(Uint8Array.of(7, 8));
    room.advance(50);
    expect(ann.events).toEqual([Uint8Array.of(7, 8)]);
  });
});

describe("notices", () => {
  it("go out at the next flush, before its frame, typed, to the players they were sent to", () => {
    const room = dots();
    const ann = room.join("ann");
    const bob = room.join("bob");
    room.advance(50);
    ann.send("shout", { text: "hi" });
    // Queued, not sent on the spot: they leave with the next flush.
    expect(ann.notices).toEqual([]);
    room.advance(50);
    expect(ann.notices).toEqual([
      { type: "shouted", data: { from: ann.playerId, text: "hi" } },
      { type: "told", data: { text: "you shouted" } },
    ]);
    expect(bob.notices).toEqual([{ type: "shouted", data: { from: ann.playerId, text: "hi" } }]);
    const n = ann.notices[0]!;
    if (n.type === "shouted") expectTypeOf(n.data).toEqualTypeOf<{ from: number; text: string }>();
    // In the flush's order: the notices, then the frame.
    const kinds = ann.messages.slice(-3).map((m) => m.kind);
    expect(kinds).toEqual(["notice", "notice", "frame"]);
    expect(room.stats().notices).toBe(3);
  });

  it("a player not connected at the flush misses them; a reconnect does not replay them", () => {
    const room = dots();
    const ann = room.join("ann");
    const bob = room.join("bob");
    bob.drop();
    ann.send("shout", { text: "anyone?" });
    room.advance(50);
    bob.reconnect();
    room.advance(50);
    expect(bob.notices).toEqual([]);
    expect(ann.notices.map((n) => n.type)).toEqual(["shouted", "told"]);
  });

  it("refuse a bad type, a payload JSON cannot carry, or one over the limit, in the game's own call", () => {
    const room = dots();
    const ann = room.join("ann");
    const ctx = room.game.ctx;
    expect(() => ctx.broadcast("no spaces" as "told", { text: "" })).toThrow(RangeError);
    expect(() => ctx.send(ann.playerId, "told", (() => 1) as never)).toThrow(TypeError);
    expect(() => ctx.broadcast("told", { text: "x".repeat(20_000) })).toThrow(/exceeds 16384/);
    room.advance(50);
    expect(ann.notices).toEqual([]);
    expect(room.stats().notices).toBe(0);
  });

  it("in a turn-based JSON room they go out with the flush that follows the move", async () => {
    const room = new TestRoom(tallyDefinition, tallyTypes);
    const ann = room.join("ann");
    const bob = room.join("bob");
    await room.settle();
    ann.input({ add: 6 });
    bob.input({ add: 5 });
    await room.settle();
    expect(ann.notices).toEqual([{ type: "milestone", data: { total: 11 } }]);
    expect(bob.notices).toEqual([{ type: "milestone", data: { total: 11 } }]);
    expect(bob.state.total).toBe(11);
  });

  it("a game outside a room sends into nothing", () => {
    const ctx = detachedContext();
    expect(() => ctx.broadcast("anything", 1)).not.toThrow();
    expect(() => ctx.send(1, "anything", 1)).not.toThrow();
  });
});
