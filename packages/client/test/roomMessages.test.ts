/**
 * Room messages on the client: `send` and `request` typed by the game's declaration (the
 * `@ts-expect-error` lines are checked by `scripts/typecheck.sh`), encoded in both dialects,
 * replies matched by id, refusals, timeouts and closes as named `RequestError`s.
 */
import { BinaryWriter, ErrorCode, MAX_MESSAGE_PAYLOAD_CHARS, PROTOCOL_VERSION, defineGameTypes, defineMessages, defineSchema, encodeReply, encodeReplyError, quant, jsonDialect } from "@tikron/protocol";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { connect, type RoomConnection } from "../src/connect";
import { createInterpolatedView } from "../src/interpolatedView";
import { withMessages, type RoomMessaging } from "../src/messaging";
import { RequestError } from "@tikron/protocol";
import { decodeSent, fakeSockets, welcomeBytes, fakeTimeConnections } from "./helpers";

interface LobbyMessages {
  ready: { request: { ready: boolean }; response: { ready: number; of: number } };
  chat: { request: { text: string }; response: void };
}
const schema = defineSchema({ dot: { x: quant(0, 10, 1) } });
const lobbyGame = defineGameTypes<number>()({ kind: "lobby", schema, encodeInput: (n, w) => w.reset().u8(n).toBytes(), messages: defineMessages<LobbyMessages>() });
const plainGame = defineGameTypes<number>()({ kind: "plain", schema, encodeInput: (n, w) => w.reset().u8(n).toBytes() });
const jsonGame = defineGameTypes<number, never, { n: number }>()({ kind: "jl", json: jsonDialect, messages: defineMessages<LobbyMessages>() });

const now = () => Date.now();
const conns = fakeTimeConnections();

function joined<G extends typeof lobbyGame | typeof jsonGame>(game: G) {
  const { Impl, sockets } = fakeSockets();
  const room = withMessages(connect("ws://h/", { game, room: "r", WebSocketImpl: Impl, now }));
  conns.push(room);
  const s = sockets[0]!;
  s.serverOpen();
  if (game.json) {
    s.serverSend(JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 0, syncIntervalMs: 0, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "jl", cap: 2, lastSeq: 0 }));
  } else {
    s.serverSend(welcomeBytes({ schemaHash: schema.hash }));
  }
  return { room, s, sockets };
}

const w = new BinaryWriter();
/** The room messages a socket sent, decoded. */
const sentMessages = (s: { sent: (string | Uint8Array)[] }) =>
  s.sent.map(decodeSent).filter((m) => ("kind" in m ? m.kind === "message" : m.t === "msg"));

/** The connections below never join, so their requests reject (not_joined): swallowed, types kept. */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

describe("types from the declaration (compile time)", () => {
  it("message names, payloads and responses are the game's", () => {
    const { Impl } = fakeSockets();
    const room = withMessages(connect("ws://h", { game: lobbyGame, room: "r", WebSocketImpl: Impl, startClosed: true }));
    conns.push(room);
    expectTypeOf(quiet(room.request("ready", { ready: true }))).resolves.toEqualTypeOf<{ ready: number; of: number }>();
    expectTypeOf(quiet(room.request("chat", { text: "hi" }))).resolves.toEqualTypeOf<void>();
    expectTypeOf(room.send).parameter(0).toEqualTypeOf<"ready" | "chat">();
    // @ts-expect-error: the game declares no `vote` message
    room.send("vote", { ready: true });
    // @ts-expect-error: a ready request is { ready: boolean }
    room.send("ready", { ready: "yes" });
    // @ts-expect-error: a chat request needs its text
    void quiet(room.request("chat", {}));
    void room.request("ready", { ready: true }).then(
      (r) => {
        // @ts-expect-error: the ready response has no `players`
        void r.players;
      },
      () => {},
    );
    const plain = withMessages(connect("ws://h", { game: plainGame, room: "r", WebSocketImpl: Impl, startClosed: true }));
    conns.push(plain);
    // @ts-expect-error: a game without messages takes none
    plain.send("ready", { ready: true });
    // A connection with declared messages (an interface) still feeds the SDK's views, and
    // passes where a hand-typed connection of its state (or of any state) is taken.
    createInterpolatedView(room, { fields: ["x"], collect: () => {} });
    type Dots = typeof room.state;
    const takesDots = (c: RoomConnection<Dots>): RoomConnection<Dots> => c;
    const takesAny = (c: RoomConnection): RoomConnection => c;
    takesDots(room);
    takesAny(room);
    takesAny(plain);
    // @ts-expect-error: a JSON room's connection is not one of the dots schema's view
    takesDots(connect("ws://h", { game: jsonGame, room: "r", WebSocketImpl: Impl, startClosed: true }));
    // Without a game: any name, any payload, an unknown response.
    const raw = withMessages(connect("ws://h", { kind: "x", room: "r", WebSocketImpl: Impl, startClosed: true }));
    conns.push(raw);
    expectTypeOf(quiet(raw.request("anything", 1))).resolves.toBeUnknown();
  });
});

describe("requests at run time", () => {
  it("binary: sends MESSAGE frames with fresh ids, resolves with the matching reply, rejects a refusal by name", async () => {
    const { room, s } = joined(lobbyGame);
    const a = room.request("ready", { ready: true });
    const b = room.request("chat", { text: "hi" });
    expect(room.send("chat", { text: "fire and forget" })).toBe(true);
    expect(sentMessages(s)).toEqual([
      { kind: "message", requestId: 1, type: "ready", payload: '{"ready":true}' },
      { kind: "message", requestId: 2, type: "chat", payload: '{"text":"hi"}' },
      { kind: "message", requestId: 0, type: "chat", payload: '{"text":"fire and forget"}' },
    ]);
    // Answers may come in any order; each settles its own request.
    s.serverSend(encodeReplyError(w.reset(), 2, ErrorCode.rate_limited, "slow down", 150).toBytes());
    s.serverSend(encodeReply(w.reset(), 1, '{"ready":1,"of":2}').toBytes());
    await expect(a).resolves.toEqual({ ready: 1, of: 2 });
    const err = await b.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestError);
    expect(err).toMatchObject({ name: "RequestError", code: "rate_limited", message: "slow down", retryAfterMs: 150 });
  });

  it("withMessages is given once: a second call returns the same connection, whose one table settles each answer", async () => {
    const { room, s } = joined(lobbyGame);
    expect(withMessages(room)).toBe(room);
    const a = room.request("ready", { ready: true });
    s.serverSend(encodeReply(w.reset(), 1, '{"ready":1,"of":1}').toBytes());
    await expect(a).resolves.toEqual({ ready: 1, of: 1 });
  });

  it("a connection without withMessages drops the room's answers and goes on", () => {
    const { Impl, sockets } = fakeSockets();
    const plain = connect("ws://h/", { game: lobbyGame, room: "r", WebSocketImpl: Impl, now });
    conns.push(plain);
    const s = sockets[0]!;
    s.serverOpen();
    s.serverSend(welcomeBytes({ schemaHash: schema.hash }));
    const errors: unknown[] = [];
    plain.on("error", (e) => errors.push(e));
    s.serverSend(encodeReply(w.reset(), 1, '{"ready":1,"of":1}').toBytes());
    expect(errors).toEqual([]);
    expect(plain.status).toBe("joined");
    expect("request" in plain).toBe(false);
  });

  it("JSON: sends msg text and reads reply text", async () => {
    const { room, s } = joined(jsonGame);
    const a = room.request("ready", { ready: false });
    expect(s.sent.at(-1)).toBe('{"t":"msg","type":"ready","id":1,"data":{"ready":false}}');
    expect(decodeSent(s.sent.at(-1)!)).toEqual({ t: "msg", type: "ready", id: 1, data: { ready: false } });
    const b = room.request("chat", { text: "x" });
    s.serverSend(JSON.stringify({ t: "reply", id: 1, data: { ready: 0, of: 2 } }));
    s.serverSend(JSON.stringify({ t: "reply", id: 2, code: ErrorCode.bad_message, name: "bad_message", reason: "too rude" }));
    await expect(a).resolves.toEqual({ ready: 0, of: 2 });
    await expect(b).rejects.toMatchObject({ code: "bad_message", message: "too rude" });
  });

  it("times out with a named error, and a late reply is ignored", async () => {
    const { room, s } = joined(lobbyGame);
    const a = room.request("ready", { ready: true }, 1000);
    const check = expect(a).rejects.toMatchObject({ name: "RequestError", code: "timeout" });
    vi.advanceTimersByTime(1000);
    await check;
    s.serverSend(encodeReply(w.reset(), 1, '{"ready":1,"of":1}').toBytes()); // nobody waits: no throw
    expect(room.status).toBe("joined");
  });

  it("rejects open requests when the socket drops (the reply cannot come on the next one) and on close", async () => {
    const { room, s, sockets } = joined(lobbyGame);
    const a = room.request("ready", { ready: true });
    const dropped = expect(a).rejects.toMatchObject({ code: "closed" });
    s.serverClose(1006, "network");
    await dropped;
    await vi.advanceTimersByTimeAsync(1000); // the reconnect attempt
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(welcomeBytes({ schemaHash: schema.hash, reconnected: true }));
    const b = room.request("ready", { ready: true });
    const closed = expect(b).rejects.toMatchObject({ code: "closed" });
    room.close();
    await closed;
    await expect(room.request("ready", { ready: true })).rejects.toMatchObject({ code: "not_joined" });
  });

  it("checks size and name before sending; send is false while not joined", async () => {
    const { room, s } = joined(lobbyGame);
    const before = s.sent.length;
    await expect(room.request("chat", { text: "x".repeat(MAX_MESSAGE_PAYLOAD_CHARS) })).rejects.toMatchObject({ code: "message_too_large" });
    expect(() => room.send("chat", { text: "x".repeat(MAX_MESSAGE_PAYLOAD_CHARS) })).toThrow(RequestError);
    const raw = room as unknown as RoomConnection<unknown, unknown, unknown> & RoomMessaging<any>;
    await expect(raw.request("no spaces allowed", null)).rejects.toMatchObject({ code: "bad_message" });
    expect(s.sent.length).toBe(before);
    room.close({ leave: false });
    expect(room.send("chat", { text: "late" })).toBe(false);
  });
});

describe("the request table", () => {
  it("names what timed out, and clears a settled request's timer", async () => {
    const { room, s } = joined(lobbyGame);
    const timers = vi.getTimerCount();
    const slow = room.requestStats(100);
    const check = expect(slow).rejects.toMatchObject({ name: "RequestError", code: "timeout", message: "stats request timed out after 100 ms" });
    vi.advanceTimersByTime(100);
    await check;
    const a = room.request("ready", { ready: true }, 1000);
    expect(vi.getTimerCount()).toBe(timers + 1);
    s.serverSend(encodeReply(w.reset(), 2, '{"ready":1,"of":1}').toBytes());
    await expect(a).resolves.toEqual({ ready: 1, of: 1 });
    expect(vi.getTimerCount()).toBe(timers);
  });

  it("a payload that cannot be sent rejects at once and leaves nothing waiting", async () => {
    const { room, s } = joined(lobbyGame);
    const timers = vi.getTimerCount();
    const before = s.sent.length;
    const raw = room as unknown as RoomConnection<unknown, unknown, unknown> & RoomMessaging<any>;
    await expect(raw.request("chat", { text: 1n })).rejects.toThrow(TypeError);
    expect(vi.getTimerCount()).toBe(timers);
    expect(s.sent.length).toBe(before);
  });
});
