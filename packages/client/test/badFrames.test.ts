import { describe, expect, it, vi } from "vitest";
import { CloseCode, ErrorCode, FrameWriter, errorName, PROTOCOL_VERSION, RECEIPT_EVERY_MESSAGES, defineSchema, encodeStats, jsonDialect, u8 } from "@tikron/protocol";
import { connect, type RoomConnection } from "../src/connect";
import { withMessages } from "../src/messaging";
import type { CloseInfo } from "../src/roomEvents";
import { schemaDecoder } from "../src/schemaDecoder";
import { errorBytes, fakeSockets, frameBytes, welcomeBytes, type FakeSocket, fakeTimeConnections } from "./helpers";

/*
 * A message the client cannot understand means client and server no longer share the stream: a
 * lost state frame leaves the view out of step (the next delta applies to the wrong base), a lost
 * reply leaves its request waiting. So any such message is reported as a local `bad_frame` error
 * and the socket dropped with the protocol-error code, which is not retried.
 */

const now = () => Date.now();
const schema = defineSchema({ p: { hp: u8() } });

const conns = fakeTimeConnections();

function setup(opts: { json?: boolean; decodeEvent?: (b: unknown) => unknown; messages?: boolean } = {}) {
  const { Impl, sockets } = fakeSockets();
  const decoder = opts.json ? undefined : schemaDecoder(schema, { decodeEvent: opts.decodeEvent });
  const made = connect("ws://h", { room: "r", kind: "k", json: opts.json ? jsonDialect : undefined, WebSocketImpl: Impl, now, decoder, reconnect: { baseMs: 1, maxMs: 1 } });
  const conn = opts.messages ? withMessages(made) : made;
  conns.push(conn);
  const errors: string[] = [];
  const closes: CloseInfo[] = [];
  const states: number[] = [];
  conn.on("error", (e) => errors.push(`${e.name ?? errorName(e.code)}${e.local ? "" : " (server)"}`));
  conn.on("close", (c) => closes.push(c));
  conn.on("state", (s) => states.push(s.tick));
  const s: FakeSocket = sockets[0]!;
  s.serverOpen();
  return { conn, sockets, s, errors, closes, states };
}

/** One enter of entity `id` with `hp`, as a delta body of {@link schema}. */
function enterBody(id: number, hp: number): Uint8Array {
  return new FrameWriter().u8(2).varuint(1).varuint(id).varuint(0).u8(hp).toBytes();
}

async function expectDroppedForGood(t: ReturnType<typeof setup>): Promise<void> {
  expect(t.errors).toContain("bad_frame");
  expect(t.s.closedWith?.code).toBe(CloseCode.protocol_error);
  expect(t.closes).toEqual([expect.objectContaining({ code: CloseCode.protocol_error, willReconnect: false })]);
  expect(t.conn.status).toBe("closed");
  await vi.advanceTimersByTimeAsync(10_000);
  expect(t.sockets).toHaveLength(1);
}

describe("connect(): a message the client cannot decode", () => {
  it("drops the socket for good when a state frame is undecodable (its delta is lost)", async () => {
    const t = setup();
    t.s.serverSend(welcomeBytes({ schemaHash: schema.hash }));
    t.s.serverSend(frameBytes({ tick: 1, time: 0, delta: enterBody(1, 10) }));
    expect(t.states).toEqual([1]);
    // Flags byte 8 is no known section: the frame, and the delta it may carry, cannot be read.
    const bad = frameBytes({ tick: 2, time: 0, delta: enterBody(2, 20) });
    bad[1] = 8;
    t.s.serverSend(bad);
    await expectDroppedForGood(t);
    expect(t.conn.stats.decodeErrors).toBe(1);
  });

  it("drops the socket for good on truncated bytes before the welcome", async () => {
    const t = setup();
    t.s.serverSend(welcomeBytes().subarray(0, 5));
    await expectDroppedForGood(t);
  });

  it.each(["{not json", JSON.stringify({ t: "state", tick: -1, time: 0 }), JSON.stringify({ t: "notice", type: "no spaces", data: 1 })])("drops the socket for good on JSON text that is not a server message, in a JSON room: %s", async (text) => {
    const t = setup({ json: true });
    t.s.serverSend(JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 0, syncIntervalMs: 0, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "k", cap: 2, lastSeq: 0 }));
    expect(t.conn.status).toBe("joined");
    t.s.serverSend(text);
    expect(t.conn.stats.decodeErrors).toBe(1);
    await expectDroppedForGood(t);
  });

  it("a malformed answer drops the socket once withMessages asks; one nobody asked for is left unread", async () => {
    const welcome = JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 0, syncIntervalMs: 0, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "k", cap: 2, lastSeq: 0 });
    const bad = JSON.stringify({ t: "reply", id: 1, code: "no" });
    const quiet = setup({ json: true });
    quiet.s.serverSend(welcome);
    quiet.s.serverSend(bad);
    expect(quiet.conn.stats.decodeErrors).toBe(0);
    expect(quiet.conn.status).toBe("joined");
    const asking = setup({ json: true, messages: true });
    asking.s.serverSend(welcome);
    asking.s.serverSend(bad);
    expect(asking.conn.stats.decodeErrors).toBe(1);
    await expectDroppedForGood(asking);
  });

  it("an answer left unread still counts toward the receipts the room bounds its backlog by", () => {
    const t = setup();
    t.s.serverSend(welcomeBytes({ schemaHash: schema.hash }));
    const stats = encodeStats(new FrameWriter(), 1, "{}").toBytes();
    for (let i = 1; i < RECEIPT_EVERY_MESSAGES; i++) t.s.serverSend(stats);
    // The welcome and the unread answers make up one receipt's worth of messages.
    expect(t.s.messages().filter((m) => m.kind === "receipt")).toEqual([expect.objectContaining({ messages: RECEIPT_EVERY_MESSAGES })]);
    expect(t.conn.status).toBe("joined");
  });

  it("reports an event body the game's decoder throws on as bad_frame and drops the socket, instead of throwing out of the socket handler", async () => {
    const t = setup({
      decodeEvent: (b) => {
        if ((b as Uint8Array)[0] === 0xff) throw new RangeError("unknown event kind");
        return (b as Uint8Array)[0];
      },
    });
    const events: unknown[] = [];
    t.conn.on("event", (e) => events.push(e.body));
    t.s.serverSend(welcomeBytes({ schemaHash: schema.hash }));
    t.s.serverSend(frameBytes({ tick: 1, time: 0, events: [new Uint8Array([7])] }));
    expect(() => t.s.serverSend(frameBytes({ tick: 2, time: 0, events: [new Uint8Array([0xff])] }))).not.toThrow();
    expect(events).toEqual([7]);
    // The frame that could not be understood is not reported as a state either.
    expect(t.states).toEqual([1]);
    await expectDroppedForGood(t);
  });
});

describe("connect(): odd but decodable server messages", () => {
  it("ignores a state frame before the welcome; the welcome starts the view from an empty baseline", () => {
    const t = setup();
    t.s.serverSend(frameBytes({ tick: 1, time: 0, delta: enterBody(1, 10) }));
    expect(t.states).toEqual([]);
    t.s.serverSend(welcomeBytes({ schemaHash: schema.hash }));
    t.s.serverSend(frameBytes({ tick: 2, time: 0, delta: enterBody(2, 20) }));
    expect(t.states).toEqual([2]);
    expect([...(t.conn.state as { values(): Iterable<{ id: number }> }).values()].map((e) => e.id)).toEqual([2]);
    expect(t.errors).toEqual([]);
  });

  it("waits out a server pause longer than a timer can hold instead of retrying at once", async () => {
    const t = setup();
    t.s.serverSend(welcomeBytes({ schemaHash: schema.hash }));
    // The largest back-off the wire carries (u32 ms, ~49 days): setTimeout would overflow it to ~1 ms.
    t.s.serverSend(errorBytes(ErrorCode.join_throttled, "slow down", 0xffffffff));
    t.s.serverClose(CloseCode.join_throttled, "slow down");
    expect(t.closes).toEqual([expect.objectContaining({ willReconnect: true })]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.sockets).toHaveLength(1);
  });
});

describe("connect(): a welcome flagged JSON on a binary connection", () => {
  it("still has its schema hash checked (the flag must not let a mismatched decoder through)", async () => {
    const t = setup();
    const errors: string[] = [];
    t.conn.on("error", (e) => errors.push(e.name ?? errorName(e.code)));
    t.s.serverSend(welcomeBytes({ json: true, schemaHash: schema.hash + 1 }));
    expect(t.conn.status).toBe("closed");
    expect(errors).toEqual(["schema_mismatch"]);
    expect(t.closes).toEqual([expect.objectContaining({ code: CloseCode.protocol_error, willReconnect: false })]);
  });
});
