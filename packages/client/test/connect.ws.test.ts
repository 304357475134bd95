import { afterEach, describe, expect, it } from "vitest";
import { createServer, type AddressInfo } from "node:net";
import { WebSocket as WsSocket, WebSocketServer } from "ws";
import {
  BinaryWriter,
  CloseCode,
  ErrorCode,
  errorName,
  PROTOCOL_VERSION,
  decodeClientMessage,
  decodeJsonClientMessage,
  encodeError,
  encodePong,
  isDecodeError,
  refusalCloseReason,
  jsonDialect,
} from "@tikron/protocol";
import { ClockSync } from "../src/clockSync";
import { connect, type RoomConnection } from "../src/connect";
import { JoinError } from "../src/index";
import type { CloseInfo, ReconnectingInfo } from "../src/roomEvents";
import type { WebSocketConstructor } from "../src/socket";
import { frameBytes, welcomeBytes } from "./helpers";

interface Hello {
  conn: number;
  path: string;
  token: string;
  name: string;
  at: number;
}

/**
 * Just enough of a room to exercise the client: welcomes (restoring seats by token), acks each
 * input in a frame, answers pings, and can refuse joins or drop sockets on demand.
 */
class TinyRoom {
  readonly wss: WebSocketServer;
  readonly hellos: Hello[] = [];
  /** Input seqs received, per connection number. */
  readonly inputs = new Map<number, number[]>();
  readonly leaves: number[] = [];
  readonly closes: { conn: number; code: number }[] = [];
  refuse: "none" | "full" = "none";
  /** Closes every new socket at once with this code and reason, as a host refusing a join after the upgrade does. */
  refuseUpgrade: { code: number; reason: string } | null = null;
  /** Inputs above this seq are ignored (lost), to model a drop mid-stream. */
  applyUpTo = Infinity;
  private conns = 0;
  private readonly lastSeq = new Map<string, number>();
  private readonly sockets = new Set<WsSocket>();

  constructor() {
    this.wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    this.wss.on("connection", (ws, req) => this.accept(ws, req.url ?? ""));
  }

  ready(): Promise<string> {
    return new Promise((resolve) => {
      const done = () => resolve(`ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}`);
      if (this.wss.address()) done();
      else this.wss.once("listening", done);
    });
  }

  dropAll(): void {
    for (const s of this.sockets) s.terminate();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.terminate();
    await new Promise<void>((r) => this.wss.close(() => r()));
  }

  /** Sockets accepted so far (refused ones included). */
  get connections(): number {
    return this.conns;
  }

  private accept(ws: WsSocket, path: string): void {
    const n = ++this.conns;
    if (this.refuseUpgrade) return ws.close(this.refuseUpgrade.code, this.refuseUpgrade.reason);
    this.sockets.add(ws);
    this.inputs.set(n, []);
    let token = "";
    let json = false;
    const send = (b: Uint8Array) => ws.send(b);
    ws.on("close", (code) => {
      this.sockets.delete(ws);
      this.closes.push({ conn: n, code });
    });
    ws.on("message", (data, isBinary) => {
      const text = isBinary ? null : data.toString();
      const m = text !== null ? decodeJsonClientMessage(text) : decodeClientMessage(new Uint8Array(data as Buffer));
      if (isDecodeError(m)) return ws.close(CloseCode.protocol_error, m.message);
      const kind = "kind" in m ? m.kind : m.t;
      if (kind === "hello") {
        const h = m as { token: string; name: string };
        json = text !== null;
        this.hellos.push({ conn: n, path, token: h.token, name: h.name, at: Date.now() });
        if (this.refuse === "full") {
          send(encodeError(new BinaryWriter(), ErrorCode.room_full, "room full").toBytes());
          return ws.close(CloseCode.room_full, "room full");
        }
        const known = h.token !== "" && this.lastSeq.has(h.token);
        token = known ? h.token : `seat-${n}`;
        if (!known) this.lastSeq.set(token, 0);
        const lastSeq = this.lastSeq.get(token)!;
        if (json) {
          ws.send(JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: n, token, tickMs: 50, syncIntervalMs: 50, serverTime: Date.now(), roomEpoch: 0, reconnected: known, roomKind: "ttt-json", cap: 2, lastSeq }));
        } else {
          send(welcomeBytes({ playerId: n, token, serverTime: Date.now(), roomEpoch: 0, reconnected: known, lastSeq }));
        }
      } else if (kind === "input") {
        const seqs = "inputs" in m ? m.inputs.map((i) => i.seq) : [(m as { seq: number }).seq];
        for (const seq of seqs) {
          this.inputs.get(n)!.push(seq);
          if (seq <= this.applyUpTo) this.lastSeq.set(token, seq);
        }
        const ack = this.lastSeq.get(token)!;
        if (json) ws.send(JSON.stringify({ t: "state", tick: ack, time: ack * 50, ack, state: { moves: ack } }));
        else send(frameBytes({ tick: ack, time: ack * 50, ack, delta: new Uint8Array([ack]) }));
      } else if (kind === "ping") {
        const ct = "clientTime" in m ? m.clientTime : (m as { ct: number }).ct;
        if (json) ws.send(JSON.stringify({ t: "pong", ct, st: Date.now() }));
        else send(encodePong(new BinaryWriter(), ct, Date.now()).toBytes());
      } else if (kind === "leave") {
        this.leaves.push(n);
      }
    });
  }
}

async function waitFor(cond: () => boolean, timeoutMs = 4000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let room: TinyRoom | null = null;
let conns: RoomConnection<any>[] = [];

afterEach(async () => {
  for (const c of conns) c.close();
  conns = [];
  await room?.close();
  room = null;
});

async function setup(): Promise<{ room: TinyRoom; url: string }> {
  room = new TinyRoom();
  return { room, url: await room.ready() };
}

const impls: [string, WebSocketConstructor | undefined][] = [
  ["Node's global WebSocket", undefined],
  ["the ws package", WsSocket],
];

describe("connect() against a real WebSocket server on loopback", () => {
  for (const [label, WebSocketImpl] of impls) {
    it(`joins, numbers inputs, gets acks and syncs the clock (${label})`, async () => {
      const { room, url } = await setup();
      const clock = new ClockSync();
      const conn = connect(url, { room: "r1", kind: "arena", name: "ann", WebSocketImpl, clock });
      conns.push(conn);
      const welcome = await conn.whenJoined();
      expect(welcome.token).toBe("seat-1");
      expect(room.hellos).toEqual([expect.objectContaining({ path: "/rooms/arena/r1", token: "", name: "ann" })]);
      const acks: number[] = [];
      conn.on("state", (s) => acks.push(s.ackSeq));
      expect([1, 2, 3].map((i) => conn.sendInput(new Uint8Array([i])))).toEqual([1, 2, 3]);
      await waitFor(() => acks.includes(3));
      expect(room.inputs.get(1)).toEqual([1, 2, 3]);
      await waitFor(() => clock.sampleCount >= 3);
      // Server and client share one machine clock here, so the offset is wall − monotonic.
      expect(Math.abs(clock.serverNow() - Date.now())).toBeLessThan(25);
      expect(conn.stats.bytesIn).toBeGreaterThan(0);
    });
  }

  it("speaks JSON mode to a JSON room", async () => {
    const { room, url } = await setup();
    const conn = connect(url, { room: "g", kind: "ttt-json", json: jsonDialect, WebSocketImpl: WsSocket });
    conns.push(conn);
    await conn.whenJoined();
    const states: unknown[] = [];
    conn.on("state", (s) => states.push(s.state));
    expect(conn.sendInput({ cell: 4 })).toBe(1);
    await waitFor(() => states.length === 1);
    expect(states[0]).toEqual({ moves: 1 });
    expect(room.hellos[0].path).toBe("/rooms/ttt-json/g");
  });

  it("reconnects with the token after the server drops the socket, without replaying stale inputs", async () => {
    const { room, url } = await setup();
    const maxMs = 150;
    const conn = connect(url, { room: "r1", kind: "arena", WebSocketImpl: WsSocket, reconnect: { baseMs: 50, maxMs } });
    conns.push(conn);
    const retries: ReconnectingInfo[] = [];
    const closes: CloseInfo[] = [];
    conn.on("reconnecting", (r) => retries.push(r));
    conn.on("close", (c) => closes.push(c));
    await conn.whenJoined();
    const acks: number[] = [];
    conn.on("state", (s) => acks.push(s.ackSeq));

    room.applyUpTo = 2; // input 3 will be lost with the socket
    for (let i = 1; i <= 3; i++) conn.sendInput(new Uint8Array([i]));
    await waitFor(() => room.inputs.get(1)!.length === 3 && acks.length === 3);
    const droppedAt = Date.now();
    room.dropAll();
    await waitFor(() => room.hellos.length === 2);
    const rejoinDelay = room.hellos[1].at - droppedAt;

    expect(closes[0]).toMatchObject({ willReconnect: true, deliberate: false });
    expect(retries).toHaveLength(1);
    expect(retries[0].delayMs).toBeGreaterThanOrEqual(0);
    expect(retries[0].delayMs).toBeLessThanOrEqual(50); // first step: full jitter under base
    expect(rejoinDelay).toBeLessThan(maxMs + 1000);
    expect(room.hellos[1].token).toBe("seat-1");

    const welcome = await conn.whenJoined();
    expect(welcome).toMatchObject({ reconnected: true, lastSeq: 2, token: "seat-1" });
    await sleep(100);
    expect(room.inputs.get(2)).toEqual([]); // input 3 was not replayed
    expect(conn.sendInput(new Uint8Array([4]))).toBe(4);
    await waitFor(() => room.inputs.get(2)!.length === 1);
    expect(room.inputs.get(2)).toEqual([4]);
  });

  it("ends the connection on room_full: whenJoined rejects with it, and nothing is retried", async () => {
    const { room, url } = await setup();
    room.refuse = "full";
    const conn = connect(url, { room: "r1", kind: "arena", WebSocketImpl: WsSocket, reconnect: { baseMs: 20, maxMs: 40 } });
    conns.push(conn);
    const closes: CloseInfo[] = [];
    const errors: string[] = [];
    conn.on("close", (c) => closes.push(c));
    conn.on("error", (e) => errors.push(e.name ?? errorName(e.code)));
    await expect(conn.whenJoined()).rejects.toMatchObject({ code: "room_full", closeCode: CloseCode.room_full, reason: "room full" });
    expect(conn.status).toBe("closed");
    expect(closes.map((c) => [c.code, c.willReconnect])).toEqual([[CloseCode.room_full, false]]);
    expect(errors).toEqual(["room_full"]);
    await sleep(300);
    expect(room.hellos).toHaveLength(1);
  });

  it("leaves and stays away after a deliberate close", async () => {
    const { room, url } = await setup();
    const conn = connect(url, { room: "r1", kind: "arena", WebSocketImpl: WsSocket, reconnect: { baseMs: 10, maxMs: 20 } });
    conns.push(conn);
    await conn.whenJoined();
    conn.close();
    await waitFor(() => room.closes.length === 1);
    expect(room.leaves).toEqual([1]);
    expect(room.closes[0].code).toBe(1000);
    await sleep(300);
    expect(room.hellos).toHaveLength(1);
    expect(conn.status).toBe("closed");
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe("refused and failed joins (real sockets)", () => {
  for (const [label, WebSocketImpl] of impls) {
    it(`a server that is down is a drop at once, not a connect timeout (${label})`, async () => {
      const conn = connect(`ws://127.0.0.1:${await deadPort()}`, { room: "r1", kind: "arena", WebSocketImpl, reconnect: { baseMs: 5000, maxMs: 5000 } });
      conns.push(conn);
      const t0 = Date.now();
      const closes: CloseInfo[] = [];
      conn.on("close", (c) => closes.push(c));
      await waitFor(() => closes.length > 0, 3000);
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(closes).toEqual([expect.objectContaining({ code: 1006, willReconnect: true, deliberate: false })]);
      expect(conn.status).toBe("connecting");
    });

    it(`a join the server refuses after the upgrade rejects whenJoined at once with the refusal, and is not retried (${label})`, async () => {
      const { room, url } = await setup();
      room.refuseUpgrade = { code: CloseCode.unauthorized, reason: "a room ticket is required (?ticket=)" };
      const conn = connect(url, { room: "r1", kind: "arena", WebSocketImpl, reconnect: { baseMs: 10, maxMs: 20 } });
      conns.push(conn);
      const t0 = Date.now();
      const err = await conn.whenJoined().then(
        () => null,
        (e: unknown) => e,
      );
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(err).toBeInstanceOf(JoinError);
      expect(err).toMatchObject({ code: "unauthorized", closeCode: CloseCode.unauthorized, reason: "a room ticket is required (?ticket=)", retryAfterMs: 0 });
      expect(conn.status).toBe("closed");
      await sleep(200);
      expect(room.connections).toBe(1);
      // Asked after the end, it still names the refusal.
      await expect(conn.whenJoined()).rejects.toMatchObject({ code: "unauthorized" });
    });
  }

  it("retries a throttled join no sooner than the close reason asks, then joins", async () => {
    const { room, url } = await setup();
    room.refuseUpgrade = { code: CloseCode.join_throttled, reason: refusalCloseReason("you are joining too often", 400) };
    const conn = connect(url, { room: "r1", kind: "arena", WebSocketImpl: WsSocket, reconnect: { baseMs: 10, maxMs: 20 } });
    conns.push(conn);
    const retries: ReconnectingInfo[] = [];
    conn.on("reconnecting", (r) => retries.push(r));
    const t0 = Date.now();
    await waitFor(() => room.connections === 1);
    room.refuseUpgrade = null;
    await conn.whenJoined();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(395);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ code: CloseCode.join_throttled });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(400);
  });
});
