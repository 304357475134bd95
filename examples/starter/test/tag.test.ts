/**
 * The game tested the way the room runs it, in Node and without Cloudflare: `TestRoom` makes the
 * room from the game's definition on a fake clock, and its players speak `tagGame`, the same
 * declaration the page connects with (inputs through its codec, state through its schema's
 * view, events and notices decoded).
 */
import { TestRoom, type TestClient } from "@tikron/core/testing";
import { BinaryWriter } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { games, type TagGame } from "../src/server/tagGame";
import { TAG_COLORS, TAG_KIND, TAG_RULES, checkChat, decodeTagInput, encodeTagInput, tagGame } from "../src/shared/tag";

type Player = TestClient<typeof tagGame>;

/** The entity the room said is this player's (its latest `youAre` event). */
function entityOf(p: Player): number {
  const yours = p.events.findLast((e) => e.kind === "youAre");
  if (yours?.kind !== "youAre") throw new Error(`${p.name} was not told its entity`);
  return yours.entity;
}

/** This player's own record, as its page would draw it. */
const me = (p: Player) => p.state.get(entityOf(p))?.record;

describe("tag input", () => {
  it("round-trips every direction and refuses anything else", () => {
    const w = new BinaryWriter(8);
    for (const dx of [-1, 0, 1] as const) {
      for (const dy of [-1, 0, 1] as const) expect(decodeTagInput(encodeTagInput(w, { dx, dy }))).toEqual({ dx, dy });
    }
    for (const bad of [new Uint8Array([3]), new Uint8Array([0x10]), new Uint8Array([5, 5]), new Uint8Array(0), "left"]) {
      expect(decodeTagInput(bad)).toMatchObject({ rejected: true, code: "bad_input" });
    }
  });
});

describe("a tag room", () => {
  // The example of docs/write-your-own-room.md, "Testing your game".
  it("ann walks right; bob sees it and hears her chat", async () => {
    const room = new TestRoom(games.tag!, tagGame);
    const ann = room.join("ann");
    const bob = room.join("bob");
    room.advance(50); // one tick: the first state frame
    const annAsBobSeesHer = () => [...bob.state.values()].find((e) => e.record.name === "ann")!.record;
    const x0 = annAsBobSeesHer().x;
    ann.input({ dx: 1, dy: 0 }); // encoded by tagGame's codec
    room.advance(500); // ten ticks and flushes
    expect(annAsBobSeesHer().x).toBeGreaterThan(x0);
    expect(await ann.request("chat", { text: "hi" })).toEqual({ heardBy: 2 });
    room.advance(50);
    expect(bob.notices).toContainEqual({ type: "chat", data: { from: "ann", text: "hi" } });
  });

  it("moves players by their inputs and passes 'it' on a touch", () => {
    const room = new TestRoom(games[TAG_KIND]!, tagGame);
    const ann = room.join("ann");
    const bob = room.join("bob");
    room.advance(100);
    expect(ann.state.size).toBe(2);
    expect(me(ann)).toMatchObject({ name: "ann", it: true }); // the first player is "it"
    expect(me(bob)).toMatchObject({ name: "bob", it: false });

    // Spawns are random: put bob on the left, far from ann's row, so his walk never meets her
    // (a tag would make him "it", and "it" runs faster).
    const game = room.game as TagGame;
    const annRec = game.world.record(entityOf(ann), "player")!;
    const bobRec = game.world.record(entityOf(bob), "player")!;
    bobRec.x = 100;
    bobRec.y = annRec.y < TAG_RULES.world / 2 ? annRec.y + 300 : annRec.y - 300;
    room.advance(50);

    // Bob walks right for one second.
    const x0 = me(bob)!.x;
    expect(x0).toBe(100);
    bob.input({ dx: 1, dy: 0 });
    room.advance(1000);
    expect(me(bob)!.x - x0).toBeCloseTo(TAG_RULES.speed, 0);

    // Put bob next to ann: the next tick she tags him.
    bob.input({ dx: 0, dy: 0 });
    room.advance(50);
    bobRec.x = annRec.x + TAG_RULES.tagRadius / 2;
    bobRec.y = annRec.y;
    room.advance(100);
    expect(me(ann)).toMatchObject({ it: false, tags: 1 });
    expect(ann.state.get(entityOf(bob))?.record).toMatchObject({ it: true });
    expect(room.stats().game).toMatchObject({ tags: 1 });
  });

  it("refuses an input the codec would never write, to its sender only", () => {
    const room = new TestRoom(games[TAG_KIND]!, tagGame);
    const ann = room.join("ann");
    const bob = room.join("bob");
    ann.inputPayloads(new Uint8Array([0xff]));
    room.advance(50);
    expect(ann.errors.map((e) => e.name)).toEqual(["bad_input"]);
    expect(bob.errors).toEqual([]);
    expect(ann.closed).toBeNull();
  });
});

describe("who is joining a tag room", () => {
  it("a player runs in the color it chose, named by its sign-in name (claims) when it has one; the seat is its identity's", () => {
    const room = new TestRoom(games[TAG_KIND]!, tagGame);
    // As a host passes a verified JWT's identity and claims (AUTH_CLAIMS=name), and the page's options.
    const ann = room.join("ann", { identity: "jwt:ann", claims: { name: "Ann B." }, joinOptions: { color: "gold" } });
    const bob = room.join("bob");
    room.advance(50);
    expect(me(ann)).toMatchObject({ name: "Ann B.", color: TAG_COLORS.indexOf("gold") });
    expect(me(bob)).toMatchObject({ name: "bob", color: TAG_COLORS.indexOf("grey") }); // the option's default
    // The same identity joining again takes its own seat back (one seat per identity): same player, same color.
    const again = room.join("ann, another tab", { identity: "jwt:ann" });
    room.advance(50);
    expect(ann.closed).toMatchObject({ code: 4005 }); // replaced by the newer socket
    expect(again.welcome).toMatchObject({ reconnected: true, playerId: ann.playerId });
    expect(me(again)).toMatchObject({ name: "Ann B.", color: TAG_COLORS.indexOf("gold") });
  });

  it("refuses a color it does not know before seating anyone: bad_request (4014), naming the option", () => {
    const room = new TestRoom(games[TAG_KIND]!, tagGame);
    // @ts-expect-error: not one of TAG_COLORS
    const odd = room.join("odd", { joinOptions: { color: "plaid" } });
    expect(odd.closed).toMatchObject({ code: 4014, reason: expect.stringContaining('"color"') });
    expect(room.stats()).toMatchObject({ seats: 0, refused: { bad_options: 1 } });
  });
});

describe("tag chat (a room message)", () => {
  it("validates a line: trimmed, 1-120 characters, a string", () => {
    expect(checkChat({ text: "  hi  " })).toEqual({ text: "hi" });
    for (const bad of [null, 5, "hi", {}, { text: 5 }, { text: "   " }, { text: "x".repeat(121) }]) {
      expect(checkChat(bad)).toMatchObject({ rejected: true, code: "bad_message" });
    }
  });

  it("says a line to everyone and answers how many heard it; a bad line is refused to its sender only", async () => {
    const room = new TestRoom(games[TAG_KIND]!, tagGame);
    const ann = room.join("ann");
    const bob = room.join("bob");
    expect(await ann.request("chat", { text: "tag me" })).toEqual({ heardBy: 2 });
    await expect(ann.request("chat", { text: "" })).rejects.toMatchObject({ code: "bad_message" });
    room.advance(50);
    expect(bob.notices).toEqual([{ type: "chat", data: { from: "ann", text: "tag me" } }]);
    expect(ann.notices).toEqual(bob.notices);
    expect(room.stats().game).toMatchObject({ chats: 1 });
    expect(room.stats().gameMessages).toMatchObject({ received: 2, handled: 1, refused: 1 });
  });
});
