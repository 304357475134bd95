/**
 * A game declaration types the connection end to end. The `@ts-expect-error` lines are checked
 * by `scripts/typecheck.sh` (this file is in the root tsconfig): each must be an error, or the
 * typecheck fails. The runtime half checks the codec really runs on both sides of the types.
 */
import {
  BinaryReader,
  BinaryWriter,
  FrameWriter,
  ClientView,
  DeltaSection,
  PROTOCOL_VERSION,
  bool,
  defineEvents,
  defineGameTypes,
  defineInput,
  defineInputs,
  f64,
  quantAngle,
  quantizeInput,
  readInput,
  errorName,
  defineNotices,
  defineSchema,
  encodeNotice,
  quant,
  quantize,
  string,
  u8,
  varuint,
  writeEvent,
  writeScalarDelta,
  writeScalarFull,
  type DeclaredEvent,
  jsonDialect,
} from "@tikron/protocol";
import { describe, expect, expectTypeOf, it } from "vitest";
import { connect, type RoomConnection } from "../src/connect";
import { createInterpolatedView } from "../src/interpolatedView";
import { schemaDecoder } from "../src/schemaDecoder";
import { fakeSockets, frameBytes, welcomeBytes, fakeTimeConnections } from "./helpers";

const schema = defineSchema({
  ship: { x: quant(0, 100, 1 / 8), y: quant(0, 100, 1 / 8), shield: bool(), name: string(8) },
  rock: { x: quant(0, 100, 1), y: quant(0, 100, 1), size: u8() },
});

interface Thrust {
  turn: -1 | 0 | 1;
  fire: boolean;
}
type ShipEvent = { kind: "hit"; by: number } | { kind: "score"; points: number };

function encodeThrust(w: BinaryWriter, t: Thrust): Uint8Array {
  return w.reset().u8((t.turn + 1) | (t.fire ? 4 : 0)).toBytes();
}
function decodeShipEvent(b: Uint8Array): ShipEvent | null {
  const r = new BinaryReader(b);
  const tag = r.u8();
  return tag === 1 ? { kind: "hit", by: r.u8() } : tag === 2 ? { kind: "score", points: r.u8() } : null;
}

const shipGame = defineGameTypes<Thrust, ShipEvent>()({
  kind: "ships",
  schema,
  encodeInput: (t, w) => encodeThrust(w, t),
  decodeEvent: decodeShipEvent,
});

interface Board {
  cells: string[];
  turn: "x" | "o";
}
const boardGame = defineGameTypes<{ cell: number }, { kind: "over"; winner: string }, Board>()({ kind: "board", json: jsonDialect });

const now = () => Date.now();
const conns = fakeTimeConnections();

describe("types from a game declaration (compile time)", () => {
  it("inputs, events and state take the game's types; wrong ones do not compile", () => {
    const { Impl } = fakeSockets();
    const room = connect("ws://h", { game: shipGame, room: "r", WebSocketImpl: Impl, startClosed: true });
    conns.push(room);
    expectTypeOf(room.sendInput).parameter(0).toEqualTypeOf<Thrust>();
    expectTypeOf(room.decoder.state).toEqualTypeOf<ClientView<(typeof schema)["decl"]>>();
    // @ts-expect-error: a field the input does not have
    room.sendInput({ turn: 1, fire: false, boost: true });
    // @ts-expect-error: a value out of the input's range
    room.sendInput({ turn: 2, fire: false });
    // @ts-expect-error: raw bytes are not the game's input
    room.sendInput(new Uint8Array([1]));
    // @ts-expect-error: not an event name of a connection
    room.on("evnt", () => {});
    room.on("event", (e) => {
      expectTypeOf(e.body).toEqualTypeOf<ShipEvent>();
      // @ts-expect-error: an event kind the game does not declare
      if (e.body.kind === "explode") return;
      if (e.body.kind === "hit") expectTypeOf(e.body.by).toBeNumber();
    });
    room.on("state", (f) => {
      for (const e of f.state.values()) {
        if (e.type === "ship") {
          expectTypeOf(e.record.shield).toBeBoolean();
          expectTypeOf(e.record.name).toBeString();
          // @ts-expect-error: ships have no size (only rocks do)
          void e.record.size;
        } else {
          expectTypeOf(e.type).toEqualTypeOf<"rock">();
          expectTypeOf(e.record.size).toBeNumber();
        }
        // @ts-expect-error: no entity type declares this field
        void e.record.hp;
      }
    });
    // @ts-expect-error: a game connection takes no decoder (the game's schema decodes)
    connect("ws://h", { game: shipGame, room: "r", decoder: undefined as never, startClosed: true, WebSocketImpl: Impl });
  });

  it("JSON games take their declared view; connect<G> can be spelled out", () => {
    const { Impl } = fakeSockets();
    const room = connect<typeof boardGame>("ws://h", { game: boardGame, room: "r", WebSocketImpl: Impl, startClosed: true });
    conns.push(room);
    expectTypeOf(room.decoder.state).toEqualTypeOf<Board>();
    expectTypeOf(room.sendInput).parameter(0).toEqualTypeOf<{ cell: number }>();
    // @ts-expect-error: a string where the input has a number
    room.sendInput({ cell: "4" });
    room.on("event", (e) => expectTypeOf(e.body.winner).toBeString());
    // Without a game, the old untyped form still works.
    const raw = connect("ws://h", { kind: "arena", room: "r", WebSocketImpl: Impl, startClosed: true });
    conns.push(raw);
    expectTypeOf(raw.sendInput).parameter(0).toBeUnknown();
  });
});

describe("a game connection at run time", () => {
  it("encodes inputs with the game's codec, decodes events and drops unknown kinds", () => {
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { game: shipGame, room: "r1", WebSocketImpl: Impl, now });
    conns.push(room);
    expect(sockets[0]!.url).toBe("ws://h/rooms/ships/r1");
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ schemaHash: schema.hash, roomKind: "ships" }));
    expect(room.sendInput({ turn: 1, fire: true })).toBe(1);
    expect(room.sendInput({ turn: -1, fire: false })).toBe(2);
    const inputs = sockets[0]!.messages().filter((m) => m.kind === "input");
    expect(inputs.map((m) => (m.kind === "input" ? Array.from(m.inputs[0]!.payload) : []))).toEqual([[6], [0]]);

    const events: ShipEvent[] = [];
    room.on("event", (e) => events.push(e.body));
    const ev = (...b: number[]) => new Uint8Array(b);
    sockets[0]!.serverSend(frameBytes({ tick: 1, time: 50, events: [ev(1, 9), ev(77), ev(2, 30)] }));
    expect(events).toEqual([
      { kind: "hit", by: 9 },
      { kind: "score", points: 30 },
    ]);
  });

  it("refuses a room of another schema, as schemaDecoder does", () => {
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { game: shipGame, room: "r1", WebSocketImpl: Impl, now });
    conns.push(room);
    const errors: string[] = [];
    room.on("error", (e) => errors.push(e.name ?? errorName(e.code)));
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ schemaHash: (schema.hash + 1) >>> 0 }));
    expect(errors).toEqual(["schema_mismatch"]);
    expect(room.status).toBe("closed");
  });

  it("JSON games send the input value and join the game's kind in JSON mode", () => {
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { game: boardGame, room: "t", WebSocketImpl: Impl, now });
    conns.push(room);
    expect(sockets[0]!.url).toBe("ws://h/rooms/board/t");
    sockets[0]!.serverOpen();
    expect(typeof sockets[0]!.sent[0]).toBe("string");
    sockets[0]!.serverSend(
      JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 0, syncIntervalMs: 0, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "board", cap: 2, lastSeq: 0 }),
    );
    expect(room.sendInput({ cell: 4 })).toBe(1);
    expect(sockets[0]!.sent[1]).toBe('{"t":"input","seq":1,"data":{"cell":4}}');
    const boards: Board[] = [];
    room.on("state", (f) => boards.push(f.state));
    sockets[0]!.serverSend(JSON.stringify({ t: "state", tick: 1, time: 10, ack: 1, state: { cells: ["x"], turn: "o" } }));
    expect(boards).toEqual([{ cells: ["x"], turn: "o" }]);
  });
});

describe("change callbacks on a game connection's state", () => {
  it("room.state reports adds, field changes with the previous value, and removes on a reconnect", () => {
    const ballSchema = defineSchema({ ball: { x: quant(0, 100, 0.5), label: string(8) } });
    const X = ballSchema.types[0]!.fields[0]!.field;
    const ballGame = defineGameTypes<number>()({ kind: "balls", schema: ballSchema, encodeInput: (n, w) => w.reset().u8(n).toBytes() });
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { game: ballGame, room: "r", WebSocketImpl: Impl, now });
    conns.push(room);
    const log: string[] = [];
    room.state.onAdd((e) => log.push(`add ${e.id} ${e.record.label}`));
    room.state.onRemove((e) => log.push(`remove ${e.id}`));
    room.state.onChange("x", (e, x, before) => log.push(`x ${e.id} ${before}→${x}`));
    // A game without events (E = never) still feeds an interpolated view.
    const v = new Float64Array(1);
    const smooth = createInterpolatedView(room, {
      fields: ["x"],
      collect(view, put) {
        for (const e of view.values()) put(e.id, ((v[0] = e.record.x), v));
      },
    });
    const enter = new FrameWriter();
    enter.u8(DeltaSection.Enters).varuint(1).varuint(3).varuint(0);
    writeScalarFull(enter, X, quantize(X, 10));
    enter.string("a");
    const move = new FrameWriter();
    move.u8(DeltaSection.Updates).varuint(1).varuint(3).varuint(1);
    writeScalarDelta(move, X, quantize(X, 12.5), quantize(X, 10));
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ schemaHash: ballSchema.hash }));
    sockets[0]!.serverSend(frameBytes({ tick: 1, time: 0, delta: enter.toBytes() }));
    sockets[0]!.serverSend(frameBytes({ tick: 2, time: 50, delta: move.toBytes() }));
    expect(log).toEqual(["add 3 a", "x 3 10→12.5"]);
    expect(smooth.size).toBe(1);
    // A rejoin starts from an empty baseline: the view's entities are removed, then re-added.
    room.reconnect();
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(welcomeBytes({ schemaHash: ballSchema.hash, reconnected: true }));
    expect(log).toEqual(["add 3 a", "x 3 10→12.5", "remove 3"]);
  });
});

describe("declared events and notices on a game connection", () => {
  const events = defineEvents({
    hit: { by: varuint(), at: quant(0, 100, 1 / 8) },
    said: { text: string(20) },
  });
  const duelSchema = defineSchema({ ship: { x: quant(0, 100, 1) } }, { events });
  interface DuelNotices {
    round: { number: number; winner: string };
  }
  const duel = defineGameTypes<number>()({ kind: "duel", schema: duelSchema, encodeInput: (n, w) => w.reset().u8(n).toBytes(), notices: defineNotices<DuelNotices>() });
  const body = (e: DeclaredEvent<typeof events.decl>) => writeEvent(new FrameWriter(), events, e).toBytes();

  it("types the events from the schema's declaration and the notices from the game's", () => {
    const { Impl } = fakeSockets();
    const room = connect("ws://h", { game: duel, room: "r", WebSocketImpl: Impl, startClosed: true });
    conns.push(room);
    room.on("event", (e) => {
      if (e.body.kind === "hit") expectTypeOf(e.body.at).toBeNumber();
      else expectTypeOf(e.body.text).toBeString();
      // @ts-expect-error: a kind the schema does not declare
      if (e.body.kind === "boom") return;
    });
    room.on("notice", (n) => {
      expectTypeOf(n.type).toEqualTypeOf<"round">();
      expectTypeOf(n.data.winner).toBeString();
    });
    const raw = connect("ws://h", { kind: "duel", room: "r", WebSocketImpl: Impl, startClosed: true });
    conns.push(raw);
    raw.on("notice", (n) => expectTypeOf(n).toEqualTypeOf<{ type: string; data: unknown }>());
  });

  it("decodes declared events with no decoder of the game's own, and hears notices once joined", () => {
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { game: duel, room: "r1", WebSocketImpl: Impl, now });
    conns.push(room);
    const heard: unknown[] = [];
    room.on("event", (e) => heard.push(e.body));
    room.on("notice", (n) => heard.push(n));
    sockets[0]!.serverOpen();
    // Before the welcome a notice has no seat to belong to: not delivered.
    sockets[0]!.serverSend(encodeNotice(new BinaryWriter(), "round", JSON.stringify({ number: 0, winner: "-" })).toBytes());
    sockets[0]!.serverSend(welcomeBytes({ schemaHash: duelSchema.hash, roomKind: "duel" }));
    sockets[0]!.serverSend(frameBytes({ tick: 1, time: 50, events: [body({ kind: "hit", by: 3, at: 12.125 }), body({ kind: "said", text: "gg" })] }));
    sockets[0]!.serverSend(encodeNotice(new BinaryWriter(), "round", JSON.stringify({ number: 1, winner: "ann" })).toBytes());
    expect(heard).toEqual([
      { kind: "hit", by: 3, at: 12.125 },
      { kind: "said", text: "gg" },
      { type: "round", data: { number: 1, winner: "ann" } },
    ]);
  });

  it("drops the socket on an event body the declaration refuses (the stream is out of step)", () => {
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { game: duel, room: "r1", WebSocketImpl: Impl, now, reconnect: false });
    conns.push(room);
    const errors: string[] = [];
    room.on("error", (e) => errors.push(`${e.name ?? errorName(e.code)}: ${e.reason}`));
    // Events are decoded for their listeners (nobody listening, nothing is decoded).
    room.on("event", () => {});
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ schemaHash: duelSchema.hash, roomKind: "duel" }));
    sockets[0]!.serverSend(frameBytes({ tick: 1, time: 50, events: [Uint8Array.of(9)] }));
    expect(errors).toEqual([expect.stringMatching(/^bad_frame: event decode failed: .*event_kind 9$/)]);
    expect(room.status).toBe("closed");
  });

  it("schemaDecoder decodes a schema's declared events for a connection without a game", () => {
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { kind: "duel", room: "r1", decoder: schemaDecoder(duelSchema), WebSocketImpl: Impl, now });
    conns.push(room);
    const heard: unknown[] = [];
    room.on("event", (e) => heard.push(e.body));
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ schemaHash: duelSchema.hash, roomKind: "duel" }));
    sockets[0]!.serverSend(frameBytes({ tick: 1, time: 50, events: [body({ kind: "said", text: "hi" })] }));
    expect(heard).toEqual([{ kind: "said", text: "hi" }]);
  });
});

describe("declared inputs on a game connection", () => {
  const steerInputs = defineInput({ dx: quant(-1, 1, 1 / 127), dy: quant(-1, 1, 1 / 127), boost: bool() });
  const steerSchema = defineSchema({ cell: { x: quant(0, 100, 1) } }, { inputs: steerInputs });
  const steerGame = defineGameTypes()({ kind: "steer", schema: steerSchema });
  const duelInputs = defineInputs({ move: { dx: quant(-1, 1, 1 / 127), aim: quantAngle(16) }, shot: { time: f64(0, 2 ** 32) } });
  const duelGame = defineGameTypes()({ kind: "duel", schema: defineSchema({ ship: { x: quant(0, 100, 1) } }, { inputs: duelInputs }) });

  it("sendInput takes the declared input; wrong fields, kinds or codecs do not compile", () => {
    const { Impl } = fakeSockets();
    const room = connect("ws://h", { game: steerGame, room: "r", WebSocketImpl: Impl, startClosed: true });
    conns.push(room);
    expectTypeOf(room.sendInput).parameter(0).toEqualTypeOf<{ dx: number; dy: number; boost: boolean }>();
    // @ts-expect-error: a field the declaration does not have
    room.sendInput({ dx: 1, dy: 0, boost: false, sprint: true });
    // @ts-expect-error: a declared field left out
    room.sendInput({ dx: 1, dy: 0 });
    // @ts-expect-error: a boolean field given a number
    room.sendInput({ dx: 1, dy: 0, boost: 1 });
    // @ts-expect-error: raw bytes are not the game's input
    room.sendInput(new Uint8Array(3));
    const duel = connect("ws://h", { game: duelGame, room: "r", WebSocketImpl: Impl, startClosed: true });
    conns.push(duel);
    type DuelInput = { kind: "move"; dx: number; aim: number } | { kind: "shot"; time: number };
    expectTypeOf(duel.sendInput).parameter(0).toMatchTypeOf<DuelInput>();
    expectTypeOf<DuelInput>().toMatchTypeOf<Parameters<typeof duel.sendInput>[0]>();
    // @ts-expect-error: a kind the declaration does not have
    duel.sendInput({ kind: "jump" });
    // @ts-expect-error: a move has no time
    duel.sendInput({ kind: "move", dx: 0, aim: 0, time: 1 });
    // The prediction's input is the same type.
    expectTypeOf(quantizeInput(steerInputs, { dx: 0, dy: 0, boost: false })).toEqualTypeOf<{ dx: number; dy: number; boost: boolean }>();
    // @ts-expect-error: a game whose schema declares its inputs takes no codec of its own
    defineGameTypes()({ kind: "steer", schema: steerSchema, encodeInput: (_i: unknown, w: BinaryWriter) => w.toBytes() });
    // And a game whose schema declares none needs one (a JavaScript caller gets a TypeError).
    // @ts-expect-error: no encodeInput for a schema without declared inputs
    expect(() => defineGameTypes<number>()({ kind: "ships", schema })).toThrow(TypeError);
  });

  it("encodes with the declaration: the bytes the room reads back, quantized as quantizeInput predicts", () => {
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { game: steerGame, room: "r1", WebSocketImpl: Impl, now });
    conns.push(room);
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ schemaHash: steerSchema.hash, roomKind: "steer" }));
    const input = { dx: 0.3, dy: -2, boost: true };
    expect(room.sendInput(input)).toBe(1);
    const sent = sockets[0]!.messages().find((m) => m.kind === "input");
    const payload = sent?.kind === "input" ? sent.inputs[0]!.payload : new Uint8Array();
    // 0.3 → level round(1.3 × 127) = 165; −2 clamps to −1 → level 0; boost 1.
    expect(Array.from(payload)).toEqual([165, 0, 1]);
    expect(readInput(steerInputs, payload)).toEqual(quantizeInput(steerInputs, input));
    // A NaN is refused before anything is sent, and costs no sequence number.
    expect(() => room.sendInput({ dx: NaN, dy: 0, boost: false })).toThrow("input dx: NaN is not a finite number");
    expect(room.sendInput({ dx: 0, dy: 0, boost: false })).toBe(2);
  });

  it("a client built against other inputs refuses the room at the welcome (the schema hash covers them)", () => {
    const { Impl, sockets } = fakeSockets();
    const room = connect("ws://h/", { game: steerGame, room: "r1", WebSocketImpl: Impl, now });
    conns.push(room);
    const errors: string[] = [];
    room.on("error", (e) => errors.push(e.name ?? errorName(e.code)));
    sockets[0]!.serverOpen();
    const before = defineSchema({ cell: { x: quant(0, 100, 1) } });
    sockets[0]!.serverSend(welcomeBytes({ schemaHash: before.hash, roomKind: "steer" }));
    expect(errors).toEqual(["schema_mismatch"]);
  });
});
