import { describe, expect, it, vi } from "vitest";
import { CloseCode, ErrorCode, FrameWriter, errorName, JSON_KEEPALIVE, PROTOCOL_VERSION, encodeCadence, jsonDialect } from "@tikron/protocol";
import { connect, type RoomConnection } from "../src/connect";
import type { CloseInfo, ReconnectingInfo } from "../src/roomEvents";
import { roomUrl } from "../src/roomUrl";
import type { StateDecoder } from "../src/decoder";
import { ClockSync } from "../src/clockSync";
import { inputBatching } from "../src/inputs";
import { withMessages } from "../src/messaging";
import { Predictor } from "../src/prediction";
import { SnapshotBuffer } from "../src/snapshotBuffer";
import { attachSnapshots } from "../src/snapshotLink";
import { decodeSent, errorBytes, fakeSockets, frameBytes, pongBytes, seeded, welcomeBytes, type FakeSocket, fakeTimeConnections } from "./helpers";

const now = () => Date.now(); // faked together with the timers

const conns = fakeTimeConnections();
function track<T extends RoomConnection<any>>(c: T): T {
  conns.push(c);
  return c;
}

function joined(s: FakeSocket, over: Parameters<typeof welcomeBytes>[0] = {}): void {
  s.serverOpen();
  s.serverSend(welcomeBytes(over));
}

function recorder(conn: RoomConnection<any>) {
  const closes: CloseInfo[] = [];
  const retries: ReconnectingInfo[] = [];
  const errors: { name: string; local: boolean; retryAfterMs: number }[] = [];
  conn.on("close", (c) => closes.push(c));
  conn.on("reconnecting", (r) => retries.push(r));
  conn.on("error", (e) => errors.push({ ...e, name: e.name ?? errorName(e.code) }));
  return { closes, retries, errors };
}

describe("connect() against an in-process fake socket", () => {
  it("builds the room URL, sends a binary hello on open and emits welcome", () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("http://game.test/", { room: "r 1", kind: "arena", name: "ann", ticket: "t&1", WebSocketImpl: Impl, now }));
    expect(sockets).toHaveLength(1);
    expect(sockets[0].url).toBe("ws://game.test/rooms/arena/r%201?ticket=t%261");
    expect(sockets[0].binaryType).toBe("arraybuffer");
    expect(conn.status).toBe("connecting");
    sockets[0].serverOpen();
    expect(sockets[0].messages()).toEqual([{ kind: "hello", version: PROTOCOL_VERSION, token: "", name: "ann", options: "" }]);
    expect(conn.sendInput(new Uint8Array([1]))).toBe(-1); // not joined yet
    const welcomes: unknown[] = [];
    conn.on("welcome", (w) => welcomes.push(w));
    sockets[0].serverSend(welcomeBytes({ playerId: 42, token: "abc" }));
    expect(welcomes).toHaveLength(1);
    expect(conn.status).toBe("joined");
    expect(conn.playerId).toBe(42);
    expect(conn.token).toBe("abc");
    expect(sockets[0].messages()).toHaveLength(1);
    expect(roomUrl("wss://x/base", "k", "r")).toBe("wss://x/base/rooms/k/r");
  });

  it("builds room URLs that keep a base's query string and drop its fragment", () => {
    expect(roomUrl("https://x/base/", "k", "r 1", "t&1")).toBe("wss://x/base/rooms/k/r%201?ticket=t%261");
    expect(roomUrl("http://x/?region=eu", "k", "r")).toBe("ws://x/rooms/k/r?region=eu");
    expect(roomUrl("wss://x/base?region=eu&a=b?c#top", "k", "r", "t")).toBe("wss://x/base/rooms/k/r?region=eu&a=b?c&ticket=t");
    expect(roomUrl("wss://x?", "k", "r")).toBe("wss://x/rooms/k/r");
  });

  it("numbers inputs and delivers acks, events and state through the decoder", () => {
    const { Impl, sockets } = fakeSockets();
    const applied: number[][] = [];
    let resets = 0;
    const decoder: StateDecoder<number> = {
      reset: () => void resets++,
      apply: (b) => void applied.push(Array.from(b as Uint8Array)),
      get state() {
        return applied.length;
      },
      decodeEvent: (b) => `ev:${Array.from(b as Uint8Array).join(",")}`,
    };
    const conn = track(connect("ws://h", { room: "r", kind: "arena", decoder, WebSocketImpl: Impl, now }));
    joined(sockets[0]);
    expect(resets).toBe(1);
    expect([1, 2, 3].map((n) => conn.sendInput(new Uint8Array([n, n])))).toEqual([1, 2, 3]);
    const inputs = sockets[0].messages().filter((m) => m.kind === "input");
    expect(inputs.map((m) => (m as { inputs: { seq: number }[] }).inputs[0].seq)).toEqual([1, 2, 3]);
    expect(Array.from((inputs[2] as { inputs: { payload: Uint8Array }[] }).inputs[0].payload)).toEqual([3, 3]);
    expect(() => conn.sendInput("not bytes")).toThrow(TypeError);
    expect(conn.sendInput(new Uint8Array([4]))).toBe(4); // a refused payload does not burn a seq

    const states: { ackSeq: number; changed: boolean; state: number; time: number }[] = [];
    const events: unknown[] = [];
    conn.on("state", (s) => states.push(s));
    conn.on("event", (e) => events.push(e.body));
    sockets[0].serverSend(frameBytes({ tick: 10, time: 500, ack: 2, events: [new Uint8Array([5])], delta: new Uint8Array([9, 8]) }));
    sockets[0].serverSend(frameBytes({ tick: 11, time: 550, ack: 3 }));
    expect(applied).toEqual([[9, 8]]);
    expect(events).toEqual(["ev:5"]);
    expect(states.map((s) => [s.ackSeq, s.changed, s.state, s.time])).toEqual([
      [2, true, 1, 500],
      [3, false, 1, 550],
    ]);
    const st = conn.stats;
    expect(st.frames).toBe(2);
    expect(st.lastAck).toBe(3);
    expect(st.inputsSent).toBe(4);
    expect(st.bytesOut).toBeGreaterThan(0);
    expect(st.bytesIn).toBeGreaterThan(0);
    expect(conn.stats).toBe(st); // one live object, no per-read allocation
  });

  it("reconnects with the token after an unexpected drop, jittered and bounded, without replaying stale inputs", async () => {
    const { Impl, sockets } = fakeSockets();
    const predictor = new Predictor<{ x: number }, number>({ applyInput: (s, dx) => ({ x: s.x + dx }) }, { x: 0 });
    const conn = track(
      connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, predictor, reconnect: { baseMs: 100, maxMs: 1000, random: seeded(3) } }),
    );
    const rec = recorder(conn);
    joined(sockets[0], { token: "seat-7" });
    for (let i = 0; i < 3; i++) predictor.push(conn.sendInput(new Uint8Array([i])), 1);
    expect(predictor.pending).toBe(3);

    sockets[0].serverClose(1006, "");
    expect(rec.closes).toEqual([{ code: 1006, reason: "", willReconnect: true, deliberate: false }]);
    expect(rec.retries).toHaveLength(1);
    const { delayMs, attempt } = rec.retries[0];
    expect(attempt).toBe(1);
    expect(delayMs).toBeGreaterThanOrEqual(0);
    expect(delayMs).toBeLessThanOrEqual(100);
    expect(conn.status).toBe("reconnecting");
    expect(conn.sendInput(new Uint8Array([9]))).toBe(-1); // nothing is queued over the drop

    await vi.advanceTimersByTimeAsync(Math.max(0, delayMs - 1));
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets).toHaveLength(2);
    sockets[1].serverOpen();
    expect(sockets[1].messages()).toEqual([{ kind: "hello", version: PROTOCOL_VERSION, token: "seat-7", name: "", options: "" }]);

    // The server had applied inputs 1 and 2; 3 was lost with the socket.
    sockets[1].serverSend(welcomeBytes({ token: "seat-7", reconnected: true, lastSeq: 2 }));
    expect(conn.status).toBe("joined");
    expect(predictor.pending).toBe(0);
    expect(predictor.lastAck).toBe(2);
    expect(sockets[1].messages().filter((m) => m.kind === "input")).toHaveLength(0);
    expect(conn.sendInput(new Uint8Array([1]))).toBe(4);
    expect(conn.stats.reconnects).toBe(1);
  });

  it("never reuses a sequence number the server reports as applied", () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, token: "old" }));
    sockets[0].serverOpen();
    expect(sockets[0].messages()[0]).toMatchObject({ kind: "hello", token: "old" });
    sockets[0].serverSend(welcomeBytes({ reconnected: true, lastSeq: 41 }));
    expect(conn.sendInput(new Uint8Array([0]))).toBe(42);
  });

  it("ends the connection on room_full: a full room is the game's to answer (another room, a queue), not a retry loop", async () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(
      connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, reconnect: { baseMs: 100, maxMs: 1000 } }),
    );
    const rec = recorder(conn);
    const joined = conn.whenJoined();
    sockets[0].serverOpen();
    sockets[0].serverSend(errorBytes(ErrorCode.room_full, "full"));
    sockets[0].serverClose(CloseCode.room_full, "room full");
    expect(rec.errors[0]).toMatchObject({ name: "room_full", local: false });
    expect(rec.retries).toEqual([]);
    expect(conn.status).toBe("closed");
    await expect(joined).rejects.toMatchObject({ name: "JoinError", code: "room_full", closeCode: CloseCode.room_full, reason: "room full" });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(1);
  });

  it("honours retryAfterMs of join_throttled", async () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now }));
    const rec = recorder(conn);
    sockets[0].serverOpen();
    sockets[0].serverSend(errorBytes(ErrorCode.join_throttled, "slow down", 5000));
    sockets[0].serverClose(CloseCode.join_throttled, "join throttled");
    expect(rec.errors[0]).toMatchObject({ name: "join_throttled", retryAfterMs: 5000 });
    expect(rec.retries[0].delayMs).toBeGreaterThanOrEqual(5000);
    await vi.advanceTimersByTimeAsync(4999);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(rec.retries[0].delayMs - 4999);
    expect(sockets).toHaveLength(2);
  });

  it("does not reconnect after a deliberate close, and sends leave first", async () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(withMessages(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now })));
    const rec = recorder(conn);
    joined(sockets[0]);
    const waiting = conn.requestStats();
    conn.close();
    await expect(waiting).rejects.toThrow(/closed/);
    expect(sockets[0].messages().at(-1)).toEqual({ kind: "leave" });
    expect(sockets[0].closedWith).toEqual({ code: 1000, reason: "client closed" });
    expect(rec.closes).toEqual([{ code: 1000, reason: "client closed", willReconnect: false, deliberate: true }]);
    sockets[0].serverClose(1000); // a late close from the transport changes nothing
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sockets).toHaveLength(1);
    expect(conn.status).toBe("closed");
    await expect(conn.whenJoined()).rejects.toThrow();
    expect(rec.retries).toHaveLength(0);
  });

  it("does not come back after replaced or bad hello", async () => {
    for (const code of [CloseCode.replaced, CloseCode.bad_hello, CloseCode.room_closed]) {
      const { Impl, sockets } = fakeSockets();
      const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now }));
      const rec = recorder(conn);
      joined(sockets[0]);
      sockets[0].serverClose(code, "bye");
      await vi.advanceTimersByTimeAsync(120_000);
      expect(sockets).toHaveLength(1);
      expect(rec.closes).toEqual([{ code, reason: "bye", willReconnect: false, deliberate: false }]);
      expect(conn.status).toBe("closed");
    }
  });

  it("stops when a close listener closes the connection", async () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now }));
    const rec = recorder(conn);
    joined(sockets[0]);
    conn.once("close", () => conn.close());
    sockets[0].serverClose(1006);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(1);
    expect(rec.retries).toHaveLength(0);
    expect(conn.status).toBe("closed");
  });

  it("joins afresh when the server no longer knows the token", async () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, token: "expired", reconnect: { baseMs: 10, maxMs: 10 } }));
    sockets[0].serverOpen();
    sockets[0].serverSend(errorBytes(ErrorCode.bad_token, "unknown token"));
    sockets[0].serverClose(CloseCode.bad_hello, "bad token");
    expect(conn.token).toBe("");
    await vi.advanceTimersByTimeAsync(20);
    expect(sockets).toHaveLength(2);
    sockets[1].serverOpen();
    expect(sockets[1].messages()[0]).toMatchObject({ kind: "hello", token: "" });
  });

  it("gives up after maxAttempts", async () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, reconnect: { maxAttempts: 3, baseMs: 50, maxMs: 200 } }));
    const rec = recorder(conn);
    for (let i = 0; i < 10 && conn.status !== "closed"; i++) {
      sockets[sockets.length - 1].serverClose(1006);
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(sockets).toHaveLength(4);
    expect(rec.retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(rec.closes.at(-1)).toMatchObject({ willReconnect: false, code: 1006 });
    expect(conn.status).toBe("closed");
  });

  it("resets the backoff once a connection has been stable", async () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(
      connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, reconnect: { maxAttempts: 2, baseMs: 10, maxMs: 10 } }),
    );
    const rec = recorder(conn);
    const cycle = async (stayMs: number) => {
      joined(sockets[sockets.length - 1]);
      await vi.advanceTimersByTimeAsync(stayMs);
      sockets[sockets.length - 1].serverClose(1011);
      await vi.advanceTimersByTimeAsync(20);
    };
    await cycle(10);
    await cycle(10);
    expect(rec.retries.map((r) => r.attempt)).toEqual([1, 2]);
    await cycle(5000); // held as long as STABLE_AFTER_MS
    expect(rec.retries.map((r) => r.attempt)).toEqual([1, 2, 1]);
    expect(conn.status).toBe("reconnecting");
  });

  it("abandons an attempt that is never welcomed", async () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, connectTimeoutMs: 3000 }));
    const rec = recorder(conn);
    await vi.advanceTimersByTimeAsync(3000);
    expect(rec.closes[0]).toMatchObject({ code: 1006, reason: "connect timeout", willReconnect: true });
    expect(sockets[0].closedWith).not.toBeNull();
  });

  it("counts the ticket fetch in the connect timeout: a ticket that never answers is abandoned", async () => {
    const { Impl, sockets } = fakeSockets();
    let calls = 0;
    const ticket = () => (++calls === 1 ? new Promise<string>(() => {}) : `t${calls}`);
    const conn = track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, ticket, connectTimeoutMs: 3000, reconnect: { baseMs: 1, maxMs: 1 } }));
    const rec = recorder(conn);
    await vi.advanceTimersByTimeAsync(2999);
    expect(rec.closes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(rec.closes[0]).toMatchObject({ code: 1006, reason: "connect timeout", willReconnect: true });
    await vi.advanceTimersByTimeAsync(5);
    // The retry fetched a fresh ticket and opened the socket the first attempt never could.
    expect(sockets.map((s) => s.url)).toEqual(["ws://h/rooms/k/r?ticket=t2"]);
  });

  it("fetches a fresh ticket for every attempt", async () => {
    const { Impl, sockets } = fakeSockets();
    let n = 0;
    track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, ticket: async () => `t${++n}`, reconnect: { baseMs: 1, maxMs: 1 } }));
    await vi.advanceTimersByTimeAsync(0);
    sockets[0].serverClose(1006);
    await vi.advanceTimersByTimeAsync(5);
    expect(sockets.map((s) => s.url)).toEqual(["ws://h/rooms/k/r?ticket=t1", "ws://h/rooms/k/r?ticket=t2"]);
  });

  it("reports a failed ticket fetch and tries again with backoff instead of giving up", async () => {
    const { Impl, sockets } = fakeSockets();
    let n = 0;
    const ticket = async () => {
      if (++n === 1) throw new Error("backend down");
      return `t${n}`;
    };
    const conn = track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, ticket, reconnect: { baseMs: 1, maxMs: 1 } }));
    const rec = recorder(conn);
    await vi.advanceTimersByTimeAsync(5);
    expect(rec.errors).toEqual([expect.objectContaining({ name: "ticket_failed", local: true })]);
    expect(rec.retries).toHaveLength(1);
    // No socket was opened without a ticket; the retry opened one with a fresh ticket.
    expect(sockets.map((s) => s.url)).toEqual(["ws://h/rooms/k/r?ticket=t2"]);
    expect(conn.status).toBe("connecting");
  });

  it("speaks JSON in JSON rooms", () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "g1", kind: "ttt-json", json: jsonDialect, name: "bo", WebSocketImpl: Impl, now }));
    sockets[0].serverOpen();
    expect(JSON.parse(sockets[0].sent[0] as string)).toEqual({ t: "hello", v: PROTOCOL_VERSION, token: "", name: "bo" });
    const states: unknown[] = [];
    const errors: string[] = [];
    conn.on("state", (s) => states.push(s.state));
    conn.on("error", (e) => errors.push(e.name ?? errorName(e.code)));
    sockets[0].serverSend(
      JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 0, syncIntervalMs: 0, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "ttt-json", cap: 2, lastSeq: 0 }),
    );
    expect(conn.status).toBe("joined");
    expect(conn.welcome).toMatchObject({ json: true, schemaHash: 0, playerId: 1 });
    expect(conn.sendInput({ cell: 4 })).toBe(1);
    expect(sockets[0].sent[1]).toBe('{"t":"input","seq":1,"data":{"cell":4}}');
    sockets[0].serverSend(JSON.stringify({ t: "state", tick: 1, time: 10, ack: 1, state: { board: "x........" } }));
    expect(states).toEqual([{ board: "x........" }]);
    sockets[0].serverSend(JSON.stringify({ t: "error", code: ErrorCode.not_your_turn, name: "not_your_turn", reason: "wait" }));
    expect(errors).toEqual(["not_your_turn"]);
    conn.close();
    expect(JSON.parse(sockets[0].sent.at(-1) as string)).toEqual({ t: "leave" });
  });

  it("follows the room's new rates (CADENCE): the welcome's copy, attached snapshot buffers, a cadence event", () => {
    const { Impl, sockets } = fakeSockets();
    const snapshots = new SnapshotBuffer({ fields: ["x"] });
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now }));
    attachSnapshots(conn, snapshots);
    const later = new SnapshotBuffer({ fields: ["x"] });
    const heard: unknown[] = [];
    conn.on("cadence", (c) => heard.push(c));
    joined(sockets[0], { tickMs: 50, syncIntervalMs: 50 });
    attachSnapshots(conn, later);
    expect(snapshots.sendIntervalMs).toBe(50);
    sockets[0].serverSend(encodeCadence(new FrameWriter(), 20, 100).toBytes());
    expect(heard).toEqual([{ tickMs: 20, syncIntervalMs: 100 }]);
    expect(conn.welcome).toMatchObject({ tickMs: 20, syncIntervalMs: 100, playerId: 7 });
    expect([snapshots.sendIntervalMs, later.sendIntervalMs]).toEqual([100, 100]);
    // JSON rooms say it in JSON.
    const json = track(connect("ws://h", { room: "g", kind: "ttt-json", json: jsonDialect, WebSocketImpl: Impl, now }));
    sockets[1].serverOpen();
    sockets[1].serverSend(JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 50, syncIntervalMs: 50, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "ttt-json", cap: 2, lastSeq: 0 }));
    sockets[1].serverSend(JSON.stringify({ t: "cadence", tickMs: 100, syncIntervalMs: 200 }));
    expect(json.welcome).toMatchObject({ tickMs: 100, syncIntervalMs: 200 });
  });

  it("refuses a decoder built for another schema, without reconnecting", async () => {
    const { Impl, sockets } = fakeSockets();
    const decoder: StateDecoder<null> = { schemaHash: 123, reset() {}, apply() {}, state: null };
    const conn = track(connect("ws://h", { room: "r", kind: "arena", decoder, WebSocketImpl: Impl, now }));
    const rec = recorder(conn);
    joined(sockets[0], { schemaHash: 456 });
    expect(rec.errors).toEqual([expect.objectContaining({ name: "schema_mismatch", local: true })]);
    // Dropped from our side with the protocol-error code, the error's name as the reason.
    expect(sockets[0].closedWith).toEqual({ code: CloseCode.protocol_error, reason: "schema_mismatch" });
    expect(rec.closes[0]).toMatchObject({ code: CloseCode.protocol_error, reason: "schema_mismatch", willReconnect: false });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(1);
  });

  it("syncs the clock it is given from the welcome round trip and pongs", async () => {
    const { Impl, sockets } = fakeSockets();
    const clock = new ClockSync({ now });
    track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, clock, pingIntervalMs: 1000 }));
    const s = sockets[0];
    const offset = 1_700_000_000_000 - Date.now();
    // Before any sample the clock applies no offset.
    expect(clock.offsetMs).toBe(0);
    s.serverOpen();
    await vi.advanceTimersByTimeAsync(40);
    const epoch = 1_699_999_000_000;
    s.serverSend(welcomeBytes({ serverTime: Date.now() - 20 + offset, syncIntervalMs: 33, roomEpoch: epoch }));
    expect(clock.rttMs).toBe(40);
    expect(Math.abs(clock.serverNow() - (Date.now() + offset))).toBeLessThan(1e-6);
    // Room time counts from the welcome's epoch.
    expect(Math.abs(clock.roomTime() - (Date.now() + offset - epoch))).toBeLessThan(1e-6);

    // Pongs come back at once (fake time stands still), with the server clock 3 ms ahead of the
    // welcome's estimate: the lower-RTT samples must win, applied directly during warm-up.
    let answered = 0;
    for (let i = 0; i < 30; i++) {
      await vi.advanceTimersByTimeAsync(50);
      const pings = s.messages().filter((m) => m.kind === "ping") as { clientTime: number }[];
      while (answered < pings.length) {
        const ct = pings[answered++].clientTime;
        s.serverSend(pongBytes(ct, ct + offset + 3));
      }
    }
    expect(answered).toBe(4); // three burst pings 100 ms apart, then one per second
    expect(clock.sampleCount).toBe(5);
    expect(clock.minRttMs).toBe(0);
    expect(clock.offsetMs).toBeCloseTo(offset + 3, 3);
  });

  it("starts the clock over at a new room epoch (a restart, another room), not at a rejoin of the same instance", async () => {
    const { Impl, sockets } = fakeSockets();
    const clock = new ClockSync({ now });
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, clock, reconnect: { baseMs: 1, maxMs: 1 } }));
    joined(sockets[0]!, { roomEpoch: 1000, token: "t" });
    expect(clock.sampleCount).toBe(1);
    // A drop and a rejoin of the same room instance: the samples stay.
    sockets[0]!.serverClose(1006);
    await vi.advanceTimersByTimeAsync(5);
    joined(sockets[1]!, { roomEpoch: 1000, token: "t", reconnected: true });
    expect(clock.sampleCount).toBe(2);
    // The room restarted (a new epoch): the old instance's samples go, room time counts from the new epoch.
    sockets[1]!.serverClose(1006);
    await vi.advanceTimersByTimeAsync(5);
    joined(sockets[2]!, { roomEpoch: 5000, serverTime: 9000 });
    expect(clock.sampleCount).toBe(1);
    expect(clock.roomTime()).toBeCloseTo(9000 - 5000, 6);
    // Another room, on its own epoch: the same.
    conn.switchTo("r2");
    joined(sockets[3]!, { roomEpoch: 7000, serverTime: 8000 });
    expect(clock.sampleCount).toBe(1);
    expect(clock.roomTime()).toBeCloseTo(1000, 6);
  });
});

  it("takes a second welcome on the open socket (a relayed room's simulation restarted) as a rejoin, but not as a round trip", async () => {
    const { Impl, sockets } = fakeSockets();
    const clock = new ClockSync({ now });
    const conn = track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, clock }));
    joined(sockets[0]!, { roomEpoch: 1000, token: "t" });
    expect(clock.sampleCount).toBe(1);
    expect(conn.sendInput(new Uint8Array([1]))).toBe(1);
    // A minute later, on the same socket: the welcome of the room back from its checkpoint.
    await vi.advanceTimersByTimeAsync(60_000);
    sockets[0]!.serverSend(welcomeBytes({ roomEpoch: 5000, serverTime: Date.now(), token: "t", reconnected: true, lastSeq: 0 }));
    expect(conn.status).toBe("joined");
    expect(conn.stats.reconnects).toBe(1);
    expect(sockets).toHaveLength(1);
    // The new epoch starts the clock over; the welcome answers no hello sent a minute ago, so it
    // is no sample (its "round trip" would be a minute).
    expect(clock.sampleCount).toBe(0);
    expect(clock.rttMs).toBe(0);
    expect(conn.sendInput(new Uint8Array([1]))).toBe(2);
  });

describe("connect(): pings", () => {
  it("with a clock, pings in a burst after the welcome, then JSON rooms send the fixed keepalive a sleeping room answers", async () => {
    const { Impl, sockets } = fakeSockets();
    track(connect("ws://h", { room: "g", kind: "ttt-json", json: jsonDialect, WebSocketImpl: Impl, now, clock: new ClockSync({ now }), pingIntervalMs: 1000 }));
    const s = sockets[0]!;
    s.serverOpen();
    s.serverSend(JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 0, syncIntervalMs: 0, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "ttt-json", cap: 2, lastSeq: 0 }));
    s.serverSend(JSON.stringify({ t: "ka" })); // the room's keepalive answer: no event, no error
    await vi.advanceTimersByTimeAsync(2500);
    const kinds = s.sent.slice(1).map((d) => (d === JSON_KEEPALIVE ? "keepalive" : (decodeSent(d) as { t?: string; kind?: string }).t));
    expect(kinds).toEqual(["ping", "ping", "ping", "keepalive", "keepalive"]);
  });

  it("with a clock, binary rooms keep pinging after the burst (the clock keeps being synced)", async () => {
    const { Impl, sockets } = fakeSockets();
    track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, clock: new ClockSync({ now }), pingIntervalMs: 1000 }));
    joined(sockets[0]!);
    await vi.advanceTimersByTimeAsync(2400);
    // The burst (3 pings, 100 ms apart), then one at 1300 and 2300 ms.
    expect(sockets[0]!.messages().map((m) => m.kind)).toEqual(["hello", "ping", "ping", "ping", "ping", "ping"]);
  });

  it("without a clock, sends only the keepalives: no burst", async () => {
    const { Impl, sockets } = fakeSockets();
    track(connect("ws://h", { room: "r", kind: "arena", WebSocketImpl: Impl, now, pingIntervalMs: 1000 }));
    joined(sockets[0]!);
    await vi.advanceTimersByTimeAsync(2400);
    expect(sockets[0]!.messages().map((m) => m.kind)).toEqual(["hello", "ping", "ping"]);
    track(connect("ws://h", { room: "g", kind: "ttt-json", json: jsonDialect, WebSocketImpl: Impl, now, pingIntervalMs: 1000 }));
    const s = sockets[1]!;
    s.serverOpen();
    s.serverSend(JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 0, syncIntervalMs: 0, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "ttt-json", cap: 2, lastSeq: 0 }));
    await vi.advanceTimersByTimeAsync(2500);
    expect(s.sent.slice(1)).toEqual([JSON_KEEPALIVE, JSON_KEEPALIVE]);
  });
});

describe("connect(): input batching (batchInputs: inputBatching(ms))", () => {
  const inputsOf = (s: FakeSocket) => s.messages().filter((m) => m.kind === "input") as { kind: "input"; inputs: { seq: number; payload: Uint8Array }[] }[];

  it("sends the first input at once and the rest together, one INPUT frame per interval", () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, batchInputs: inputBatching(50) }));
    joined(sockets[0]!);
    const buf = new Uint8Array([7]);
    const seqs: number[] = [];
    for (let i = 0; i < 5; i++) {
      buf[0] = i; // the caller reuses its buffer: batched payloads must be copies
      seqs.push(conn.sendInput(buf));
      vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(50);
    const frames = inputsOf(sockets[0]!);
    expect(frames.map((f) => f.inputs.map((e) => e.seq))).toEqual([[seqs[0]], seqs.slice(1)]);
    expect(frames.flatMap((f) => f.inputs.map((e) => e.payload[0]))).toEqual([0, 1, 2, 3, 4]);
    expect(conn.stats.inputsSent).toBe(5);
  });

  it("flushes as soon as a batch reaches the protocol's 16-input limit", () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, batchInputs: inputBatching(1000) }));
    joined(sockets[0]!);
    for (let i = 0; i < 17; i++) conn.sendInput(new Uint8Array([i]));
    expect(inputsOf(sockets[0]!).map((f) => f.inputs.length)).toEqual([1, 16]);
  });

  it("never sends inputs queued before a drop on the new connection", () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, batchInputs: inputBatching(100), reconnect: { baseMs: 1, maxMs: 1 } }));
    joined(sockets[0]!, { token: "t" });
    conn.sendInput(new Uint8Array([1])); // leading edge: sent
    conn.sendInput(new Uint8Array([2])); // queued
    sockets[0]!.serverClose(1006);
    vi.advanceTimersByTime(20);
    expect(sockets.length).toBe(2);
    joined(sockets[1]!, { token: "t", lastSeq: 1 });
    vi.advanceTimersByTime(200);
    expect(inputsOf(sockets[1]!)).toEqual([]);
    const seq = conn.sendInput(new Uint8Array([3]));
    expect(seq).toBeGreaterThan(2);
    expect(inputsOf(sockets[1]!).map((f) => f.inputs.map((e) => e.seq))).toEqual([[seq]]);
  });
});
