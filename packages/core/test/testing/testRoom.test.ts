/**
 * The test harness reports what the room really sent: state read through the schema's view,
 * events decoded in the order the room emitted them, refusals as errors and rejected requests,
 * closes with their codes, reconnects into held seats, JSON rooms after their microtask flush,
 * and receipts that keep a long test from being throttled as a client that stopped reading.
 */
import { BinaryWriter, CloseCode, ErrorCode, PROTOCOL_VERSION, RequestError, defineGameTypes, defineSchema, encodeHello, quant, type ClientView } from "@tikron/protocol";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Connection } from "../../src";
import { TestRoom } from "../../src/testing";
import { DOT_STEP, DotsGame, dotsDefinition, dotsSchema, dotsTypes, tallyDefinition, tallyTypes, type DotsEvent } from "./games";

const dots = () => new TestRoom(dotsDefinition, dotsTypes);

describe("TestRoom: a binary room", () => {
  it("seats players and shows each the state through the schema's view, and its own entity by event", () => {
    const room = dots();
    const ann = room.join("ann");
    const bob = room.join("bob");
    expect(ann.welcome).toMatchObject({ roomKind: "dots", schemaHash: dotsSchema.hash, reconnected: false });
    expect(bob.playerId).not.toBe(ann.playerId);
    room.advance(50);
    expectTypeOf(ann.state).toEqualTypeOf<ClientView<(typeof dotsSchema)["decl"]>>();
    expect([...ann.state.values()].map((e) => e.record.name).sort()).toEqual(["ann", "bob"]);
    const yours = ann.events.find((e): e is Extract<DotsEvent, { kind: "yours" }> => e.kind === "yours")!;
    expect(ann.state.get(yours.entity)?.record).toMatchObject({ name: "ann", x: 500 });
    // Events addressed to one player reach only that player.
    expect(bob.events.filter((e) => e.kind === "yours")).toHaveLength(1);
  });

  it("encodes inputs with the declaration's codec: applied at the next tick, acked, moved in everyone's view", () => {
    const room = dots();
    const ann = room.join("ann");
    const bob = room.join("bob");
    expect(ann.input({ dx: 1 }, { dx: 1 }, { dx: -1 })).toBe(3);
    room.advance(50);
    expect(ann.ackSeq).toBe(3);
    expect(ann.frames.at(-1)).toMatchObject({ ackSeq: 3, changed: true });
    const annInBob = [...bob.state.values()].find((e) => e.record.name === "ann")!;
    expect(annInBob.record.x).toBe(500 + DOT_STEP);
    expect(room.stats().inputs).toMatchObject({ received: 3, processed: 3, rejected: 0 });
    // @ts-expect-error: not an input of this game
    expect(() => ann.input({ dx: 2 })).not.toThrow();
  });

  it("delivers events in the order the room emitted them, across players", () => {
    const room = dots();
    const ann = room.join("ann");
    const bob = room.join("bob");
    ann.input({ dx: 1 });
    bob.input({ dx: -1 });
    ann.input({ dx: 1 });
    room.advance(50);
    const moved = (c: typeof ann) => c.events.filter((e) => e.kind === "moved");
    const expected = [
      { kind: "moved", player: ann.playerId, x: 510 },
      { kind: "moved", player: bob.playerId, x: 490 },
      { kind: "moved", player: ann.playerId, x: 520 },
    ];
    expect(moved(ann)).toEqual(expected);
    expect(moved(bob)).toEqual(expected);
    // All three went out in the one frame of that tick, after ann's own `yours` event.
    expect(ann.frames.at(-1)!.events.filter((e) => e.kind === "moved")).toEqual(expected);
    expect(ann.frames).toHaveLength(1);
  });

  it("shows a refused input as the room's error, and the room keeps running", () => {
    const room = dots();
    const ann = room.join("ann");
    const bob = room.join("bob");
    ann.inputPayloads(new Uint8Array([7]), new Uint8Array([1, 1]));
    room.advance(50);
    expect(ann.errors).toEqual([expect.objectContaining({ code: ErrorCode.bad_input, name: "bad_input", reason: expect.stringMatching(/^2 inputs refused/) })]);
    expect(bob.errors).toEqual([]);
    expect(room.stats().inputs.rejectedByCode).toEqual({ bad_input: 2 });
    // Refused inputs are acked, so a page stops predicting them.
    expect(ann.ackSeq).toBe(2);
    ann.input({ dx: 1 });
    room.advance(50);
    expect(ann.errors).toHaveLength(1);
    expect(ann.ackSeq).toBe(3);
  });

  it("answers requests typed by the declaration; a refusal rejects with the room's error name", async () => {
    const room = dots();
    const ann = room.join("ann");
    const reply = await ann.request("echo", { n: 7 });
    expectTypeOf(reply).toEqualTypeOf<{ n: number; from: number }>();
    expect(reply).toEqual({ n: 7, from: ann.playerId });
    await expect(ann.request("echo", { n: -1 })).rejects.toMatchObject({ name: "RequestError", code: "illegal_move", message: "no negative echoes" });
    await expect(ann.request("echo", { n: "x" } as never)).rejects.toBeInstanceOf(RequestError);
    // A message that wants no answer is refused with an ERROR instead.
    ann.send("shout", { text: "hi" });
    ann.send("shout", { oops: 1 } as never);
    expect(ann.errors.map((e) => e.name)).toEqual(["bad_message"]);
    // @ts-expect-error: not a message of this game
    await expect(ann.request("dance", {})).rejects.toMatchObject({ code: "unknown_message" });
    expect(room.stats().gameMessages).toMatchObject({ received: 6, handled: 2, refusedByCode: { illegal_move: 1, bad_message: 2, unknown_message: 1 } });
  });

  it("rejects a request the room closed the socket on instead of answering, with closed", async () => {
    const room = dots();
    const ann = room.join("ann");
    // Refused messages spend the socket's refusal budget; the one that spends the last is not
    // answered: the room closes the socket (4010).
    const codes: Promise<string>[] = [];
    while (!ann.closed) codes.push(ann.request("echo", { n: "x" } as never).then(() => "answered", (e: RequestError) => e.code));
    expect(ann.closed).toMatchObject({ code: CloseCode.too_many_errors });
    const answered = await Promise.all(codes);
    expect(answered.at(-1)).toBe("closed");
    expect(answered.slice(0, -1).every((c) => c === "bad_message" || c === "rate_limited")).toBe(true);
    expect(answered.length).toBeGreaterThan(2);
  });

  it("shows the room's closes with their codes, and refuses to send on a closed socket", () => {
    const room = new TestRoom(dotsDefinition, dotsTypes, { overrides: { cap: 1 } });
    const ann = room.join("ann");
    const late = room.join("late");
    expect(late.closed).toEqual({ code: CloseCode.room_full, reason: expect.any(String) });
    expect(late.errors.map((e) => e.name)).toEqual(["room_full"]);
    expect(() => late.playerId).toThrow(/late is not seated \(closed 4002/);
    expect(() => late.input({ dx: 1 })).toThrow(/late: cannot send inputs: the socket is closed \(4002/);
    ann.leave();
    expect(ann.closed).toMatchObject({ code: CloseCode.normal });
    expect(room.room.seatCount).toBe(0);
  });

  it("drops a socket and reconnects into the held seat with a fresh view and seqs above the last applied", () => {
    const room = dots();
    const ann = room.join("ann");
    const bob = room.join("bob");
    ann.input({ dx: 1 }, { dx: 1 });
    room.advance(50);
    const id = ann.playerId;
    ann.drop();
    expect(ann.closed).toEqual({ code: 1006, reason: "dropped" });
    expect(room.room.connectedCount).toBe(1);
    expect(room.room.seatCount).toBe(2);
    ann.reconnect();
    expect(ann.welcome).toMatchObject({ playerId: id, reconnected: true, lastSeq: 2 });
    expect(ann.closed).toBeNull();
    expect(ann.state.size).toBe(0); // emptied by the welcome, refilled by the next frame
    room.advance(50);
    expect(ann.state.size).toBe(2);
    expect(ann.input({ dx: 1 })).toBe(3);
    room.advance(50);
    expect(ann.errors).toEqual([]);
    expect([...bob.state.values()].find((e) => e.record.name === "ann")!.record.x).toBe(530);
  });

  it("joins with a token a restarted room restores from its checkpoint", () => {
    const first = dots();
    const ann = first.join("ann");
    ann.input({ dx: 1 }, { dx: 1 });
    first.advance(50);
    const checkpoint = JSON.parse(JSON.stringify(first.room.checkpoint()));
    const second = dots();
    expect(second.room.restoreCheckpoint(checkpoint)).toBe(true);
    const back = second.join("ann", { token: ann.token });
    expect(back.welcome).toMatchObject({ playerId: ann.playerId, reconnected: true, lastSeq: 2 });
    // A new client, but its seqs go on above the seat's last: the room takes the input.
    expect(back.input({ dx: -1 })).toBe(3);
    second.advance(50);
    expect(back.errors).toEqual([]);
    expect(back.ackSeq).toBe(3);
  });

  it("runs a game instance made by the test, typed as that game", () => {
    const game = new DotsGame();
    const room = new TestRoom(game, dotsTypes, { overrides: { tickMs: 20, syncIntervalMs: 20 } });
    expectTypeOf(room.game).toEqualTypeOf<DotsGame>();
    expect(room.game).toBe(game);
    expect(room.room.options.tickMs).toBe(20);
    const ann = room.join("ann");
    ann.input({ dx: -1 });
    room.advance(20);
    expect(game.dots.get(ann.playerId)!.rec.x).toBe(490);
    expect(room.time).toBe(20);
    expect(ann.frames.at(-1)!.time).toBe(20);
  });

  it("confirms what it read with receipts, so a long test is not throttled as a stalled reader", () => {
    // 90 s of frames: past the room's backlog of unconfirmed messages for a client that reads
    // nothing, as the silent socket in the second room shows.
    const play = (withSilent: boolean) => {
      const room = dots();
      const ann = room.join("ann");
      if (withSilent) {
        const silent: Connection = { send() {}, close() {}, bufferedAmount: () => 0 };
        room.room.message(room.room.open(silent), encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: "silent" }).toBytes());
      }
      for (let s = 0; s < 90; s++) {
        ann.input({ dx: s % 2 === 0 ? 1 : -1 });
        room.advance(1000);
      }
      return { room, ann };
    };
    const { room, ann } = play(false);
    expect(room.stats().framesSkipped).toBe(0);
    expect(ann.closed).toBeNull();
    // Still one frame per input and the idle ones between: about 5 a second to the end.
    expect(ann.frames.filter((f) => f.time > 80_000).length).toBeGreaterThanOrEqual(40);
    expect(play(true).room.stats().framesSkipped).toBeGreaterThan(0);
  });
});

describe("TestRoom: a JSON turn-based room", () => {
  it("shows each player's view after the room's flush, with events and refusals", async () => {
    const room = new TestRoom(tallyDefinition, tallyTypes);
    const ann = room.join("ann");
    const bob = room.join("bob");
    await room.settle();
    expect(ann.state).toEqual({ total: 0, you: ann.playerId, players: 2 });
    ann.input({ add: 3 });
    bob.input({ add: 4 });
    await room.settle();
    expect(bob.state).toEqual({ total: 7, you: bob.playerId, players: 2 });
    expect(bob.events).toEqual([
      { added: 3, by: ann.playerId },
      { added: 4, by: bob.playerId },
    ]);
    ann.inputPayloads({ add: 11 }, "three");
    await room.settle();
    expect(ann.errors.map((e) => e.name)).toEqual(["bad_input", "bad_input"]);
    expect(ann.state.total).toBe(7);
    expect(ann.ackSeq).toBe(3);
    // @ts-expect-error: not a tally input
    expect(() => ann.input({ add: "x" })).not.toThrow();
  });
});

describe("TestRoom: mistakes in the test itself get a clear error", () => {
  it("a declaration of the other dialect is refused when the room is made", () => {
    expect(() => new TestRoom(dotsDefinition, tallyTypes)).toThrow(/declaration of tally is JSON but room dots syncs binary/);
  });

  it("a declaration with another schema fails the client that reads, not the room", () => {
    const otherTypes = defineGameTypes<{ dx: -1 | 0 | 1 }>()({ kind: "dots", schema: defineSchema({ dot: { x: quant(0, 10, 1) } }), encodeInput: (i, w) => w.reset().u8(i.dx + 1).toBytes() });
    const room = new TestRoom(dotsDefinition, otherTypes);
    const ann = room.join("ann");
    expect(() => ann.welcome).toThrow(/ann: the room's schema \(hash \d+\) is not the declaration's/);
    expect(() => ann.events).toThrow(/schema/);
    expect(room.room.connectedCount).toBe(1);
  });

  it("time never runs backwards", () => {
    const room = dots();
    expect(() => room.advance(-1)).toThrow(RangeError);
    expect(() => room.advance(Number.NaN)).toThrow(RangeError);
    expect(room.time).toBe(0);
  });
});
