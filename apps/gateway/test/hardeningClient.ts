/**
 * Minimal live clients for the hardening, records and restart integration tests: an agar player
 * that records what it receives (with arrival times), and a probe for how a WebSocket handshake
 * is answered (refused with a close right after the upgrade, or with an HTTP status). Deliberately independent of the client SDK, so these tests see the wire
 * exactly as a hostile or naive client would.
 */
import { BinaryWriter, PROTOCOL_VERSION, ReceiptCounter, decodeServerMessage, encodeHello, encodeInputs, encodeLeave, encodeReceipt, encodeStatsRequest, isDecodeError, type ServerMessage } from "@tikron/protocol";
import { agarInputs } from "@tikron/games/schemas";
import WebSocket from "ws";

type Welcome = Extract<ServerMessage, { kind: "welcome" }>;
type ErrorMsg = Extract<ServerMessage, { kind: "error" }>;

/** Options of a socket opened by these helpers. */
export interface OpenOptions {
  origin?: string;
  /** Give up on the handshake after this long (default 10 s). */
  timeoutMs?: number;
}

/** Opens a socket; resolves once open, or with the HTTP status the gateway refused it with. */
export function openSocket(url: string, options: OpenOptions = {}): Promise<{ ws: WebSocket } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, ...(options.origin ? { origin: options.origin } : {}), handshakeTimeout: options.timeoutMs ?? 10_000 });
    ws.binaryType = "nodebuffer";
    ws.once("open", () => resolve({ ws }));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once("error", (e) => reject(e));
  });
}

/**
 * How a handshake is answered: an HTTP status without an upgrade, or 101 and then either a close
 * at once (a refused join: its code and reason) or nothing for `settleMs` (admitted; the socket
 * is closed again). A room closes an admitted socket that never says hello only after seconds.
 */
export async function handshakeAnswer(url: string, options: OpenOptions & { settleMs?: number } = {}): Promise<{ status: number; close?: number; reason?: string }> {
  const r = await openSocket(url, options);
  if ("status" in r) return r;
  const closed = await new Promise<{ close: number; reason: string } | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), options.settleMs ?? 1_000);
    r.ws.once("close", (code, reason) => {
      clearTimeout(timer);
      resolve({ close: code, reason: reason.toString() });
    });
  });
  r.ws.terminate();
  return closed ? { status: 101, ...closed } : { status: 101 };
}

/** One agar player over a raw socket. */
export class LivePlayer {
  readonly ws: WebSocket;
  welcome: Welcome | null = null;
  readonly errors: ErrorMsg[] = [];
  /** `performance.now()` of every FRAME received. */
  readonly frameTimes: number[] = [];
  /** Server-side room time (`time`, ms since the room epoch) of every FRAME received. */
  readonly frameRoomTimes: number[] = [];
  readonly stats: unknown[] = [];
  closed: { code: number; reason: string } | null = null;
  seq = 0;
  private readonly w = new BinaryWriter(256);
  private readonly pw = new BinaryWriter(16);
  private readonly receipts = new ReceiptCounter();
  /** Confirms what it reads, as the SDK does; false plays a client that never confirms. */
  confirmReads = true;
  private steer: ReturnType<typeof setInterval> | null = null;
  private readonly closeWaiters: (() => void)[] = [];
  private readonly welcomeWaiters: (() => void)[] = [];

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (!isBinary) return;
      if (this.receipts.read(ws, data) && this.confirmReads) ws.send(encodeReceipt(this.w.reset(), this.receipts.messages, this.receipts.units).toBytes());
      const m = decodeServerMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      if (isDecodeError(m)) return;
      if (m.kind === "welcome") {
        this.welcome = m;
        // As the SDK does: a seat that comes back (a reconnect, a restored checkpoint) has applied
        // inputs up to lastSeq, so this socket's seqs continue above it.
        this.seq = Math.max(this.seq, m.lastSeq);
        for (const f of this.welcomeWaiters.splice(0)) f();
      } else if (m.kind === "frame") {
        this.frameTimes.push(performance.now());
        this.frameRoomTimes.push(m.time);
      }
      else if (m.kind === "error") this.errors.push(m);
      else if (m.kind === "stats") this.stats.push(m.stats);
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.stopSteering();
      for (const f of this.closeWaiters.splice(0)) f();
      for (const f of this.welcomeWaiters.splice(0)) f();
    });
    ws.on("error", () => {});
  }

  /** Connects and says hello; resolves after the welcome (or a refusal/close). */
  static async join(url: string, opts: { name?: string; token?: string; origin?: string; timeoutMs?: number } = {}): Promise<LivePlayer> {
    const r = await openSocket(url, opts);
    if ("status" in r) throw new Error(`handshake refused with HTTP ${r.status}: ${r.body}`);
    const p = new LivePlayer(r.ws);
    const got = new Promise<void>((res) => p.welcomeWaiters.push(res));
    r.ws.send(encodeHello(p.w.reset(), { version: PROTOCOL_VERSION, token: opts.token ?? "", name: opts.name ?? "p" }).toBytes());
    await withTimeout(got, opts.timeoutMs ?? 10_000, "welcome");
    return p;
  }

  /** Sends one steering input. */
  input(dx: number, dy: number, boost = false): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const payload = agarInputs.encode({ dx, dy, boost }, this.pw);
    this.ws.send(encodeInputs(this.w.reset(), [{ seq: ++this.seq, payload }]).toBytes());
  }

  /** Steers in a slow circle, one input every `everyMs`, so the cell keeps moving and every flush carries an ack. */
  startSteering(everyMs = 50): void {
    this.stopSteering();
    let angle = Math.random() * 2 * Math.PI;
    this.steer = setInterval(() => {
      angle += 0.05;
      this.input(Math.cos(angle), Math.sin(angle));
    }, everyMs);
  }

  stopSteering(): void {
    if (this.steer) clearInterval(this.steer);
    this.steer = null;
  }

  /** Asks for `tk:stats` and resolves with the snapshot. */
  async requestStats(timeoutMs = 5_000): Promise<Record<string, any>> {
    const before = this.stats.length;
    this.ws.send(encodeStatsRequest(this.w.reset(), before + 1).toBytes());
    const deadline = Date.now() + timeoutMs;
    while (this.stats.length === before) {
      if (Date.now() > deadline || this.closed) throw new Error("no stats reply");
      await sleep(20);
    }
    return this.stats[this.stats.length - 1] as Record<string, any>;
  }

  /** Leaves for good (the room frees the seat at once) and waits for the close. */
  async leave(timeoutMs = 5_000): Promise<void> {
    this.stopSteering();
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(encodeLeave(this.w.reset()).toBytes());
    await this.waitClosed(timeoutMs);
  }

  /** Resolves once the socket is closed (or after `timeoutMs`, whichever first). */
  waitClosed(timeoutMs = 5_000): Promise<void> {
    if (this.closed) return Promise.resolve();
    return Promise.race([new Promise<void>((r) => this.closeWaiters.push(r)), sleep(timeoutMs)]);
  }

  /**
   * Largest gap in *room time* between consecutive FRAMEs that arrived in [from, to]: how late
   * the room itself flushed, free of delays in the local proxy and in this test process.
   */
  maxRoomTimeGap(from: number, to: number): number {
    return Math.max(0, ...this.roomTimeGaps(from, to));
  }

  /** Room-time gaps between consecutive FRAMEs that arrived in [from, to]. */
  roomTimeGaps(from: number, to: number): number[] {
    const gaps: number[] = [];
    let prev: number | null = null;
    for (let i = 0; i < this.frameTimes.length; i++) {
      const at = this.frameTimes[i]!;
      if (at < from || at > to) continue;
      const t = this.frameRoomTimes[i]!;
      if (prev !== null) gaps.push(t - prev);
      prev = t;
    }
    return gaps;
  }

  close(): void {
    this.stopSteering();
    this.ws.terminate();
  }
}

/** The q-quantile (0..1) of a list of numbers (nearest rank); 0 for an empty list. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out waiting for ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
