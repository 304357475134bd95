import {
  FrameWriter,
  FrameFlag,
  PROTOCOL_VERSION,
  beginFrame,
  decodeClientMessage,
  decodeJsonClientMessage,
  encodeError,
  encodePong,
  encodeWelcome,
  endFrame,
  isDecodeError,
  writeFrameAck,
  writeFrameEvents,
  type ClientMessage,
  type JsonClientMessage,
  type WelcomeMessage,
} from "@tikron/protocol";
import { afterEach, beforeEach, vi } from "vitest";
import type { RoomConnection } from "../src/roomConnection";
import type { WebSocketLike } from "../src/socket";

/** Small seeded PRNG (mulberry32): reproducible "randomness" for tests. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function welcomeBytes(over: Partial<Omit<WelcomeMessage, "kind">> = {}): Uint8Array {
  return encodeWelcome(new FrameWriter(), {
    version: PROTOCOL_VERSION,
    playerId: 7,
    token: "tok-1",
    tickMs: 50,
    syncIntervalMs: 50,
    serverTime: 1_700_000_000_000,
    roomEpoch: 1_699_999_000_000,
    reconnected: false,
    json: false,
    roomKind: "arena",
    cap: 20,
    schemaHash: 0,
    lastSeq: 0,
    ...over,
  }).toBytes();
}

export function frameBytes(f: { tick: number; time: number; ack?: number; events?: Uint8Array[]; delta?: Uint8Array }): Uint8Array {
  const w = new FrameWriter();
  const pos = beginFrame(w, f.tick, f.time);
  let flags = 0;
  if (f.ack !== undefined) {
    writeFrameAck(w, f.ack);
    flags |= FrameFlag.Ack;
  }
  if (f.events) {
    writeFrameEvents(w, f.events);
    flags |= FrameFlag.Events;
  }
  if (f.delta) {
    w.bytes(f.delta);
    flags |= FrameFlag.Delta;
  }
  endFrame(w, pos, flags);
  return w.toBytes();
}

export function errorBytes(code: number, reason: string, retryAfterMs = 0): Uint8Array {
  return encodeError(new FrameWriter(), code, reason, retryAfterMs).toBytes();
}

export function pongBytes(clientTime: number, serverTime: number): Uint8Array {
  return encodePong(new FrameWriter(), clientTime, serverTime).toBytes();
}

/** Decodes what a client sent (binary or JSON) for assertions. */
export function decodeSent(d: string | Uint8Array): ClientMessage | JsonClientMessage {
  const m = typeof d === "string" ? decodeJsonClientMessage(d) : decodeClientMessage(d);
  if (isDecodeError(m)) throw m;
  return m;
}

/** An in-process WebSocket double. The test plays the server through the `server*` methods. */
export class FakeSocket implements WebSocketLike {
  binaryType = "blob";
  readyState = 0;
  readonly sent: (string | Uint8Array)[] = [];
  closedWith: { code: number; reason: string } | null = null;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  constructor(readonly url: string) {}

  send(data: string | Uint8Array): void {
    if (this.readyState !== 1) throw new Error("send on a socket that is not open");
    this.sent.push(typeof data === "string" ? data : data.slice());
  }
  close(code = 1000, reason = ""): void {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }

  serverOpen(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  serverSend(data: Uint8Array | string): void {
    // Like a browser with binaryType "arraybuffer": a fresh ArrayBuffer per message.
    this.onmessage?.({ data: typeof data === "string" ? data : data.slice().buffer });
  }
  serverClose(code: number, reason = ""): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  /**
   * The transport fails. `node`: Node 22's WebSocket after a refused upgrade or an unreachable
   * server: an error event, no close, `readyState` unchanged. `browser`: the socket is closed, then
   * an error and a close (1006) fire, as browsers do.
   */
  serverFail(how: "node" | "browser"): void {
    if (how === "node") return this.onerror?.({ message: "Received network error or non-101 status code." });
    this.readyState = 3;
    this.onerror?.({});
    this.onclose?.({ code: 1006, reason: "" });
  }
  /** The binary messages the client sent, decoded. */
  messages(): ClientMessage[] {
    return this.sent.map((d) => {
      if (typeof d === "string") throw new Error("expected binary messages");
      const m = decodeClientMessage(d);
      if (isDecodeError(m)) throw m;
      return m;
    });
  }
}

/** A fresh fake WebSocket class plus the list of sockets it created. */
export function fakeSockets(): { Impl: new (url: string) => FakeSocket; sockets: FakeSocket[] } {
  const sockets: FakeSocket[] = [];
  class Impl extends FakeSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  return { Impl, sockets };
}

/**
 * Runs each test of the calling file on fake timers and closes, after it, every connection the
 * test pushed onto the returned list (so no retry timer outlives its test).
 */
export function fakeTimeConnections(): RoomConnection<any>[] {
  const conns: RoomConnection<any>[] = [];
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => {
    for (const c of conns.splice(0)) c.close();
    vi.useRealTimers();
  });
  return conns;
}
