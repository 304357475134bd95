import WebSocket from "ws";
import {
  ReceiptCounter,
  encodeReceipt,
  BinaryWriter,
  PROTOCOL_VERSION,
  decodeServerMessage,
  encodeHello,
  encodeInputs,
  encodeStatsRequest,
  isBundle,
  isDecodeError,
  readBundle,
  type ErrorMessage,
  type FrameMessage,
  type WelcomeMessage,
} from "@tikron/protocol";

/** A frame with its local arrival time. */
export interface TimedFrame {
  at: number;
  frame: FrameMessage;
}

/**
 * Minimal protocol client for integration tests: raw frames in, raw frames out, every arrival
 * timestamped. Deliberately independent of the SDK, so server tests do not depend on it.
 */
export class RawClient {
  readonly ws: WebSocket;
  readonly frames: TimedFrame[] = [];
  readonly errors: ErrorMessage[] = [];
  /** Every message received, its bytes as they arrived (a replay's frames are compared with them). */
  readonly raw: Uint8Array[] = [];
  /** Bundles received (several frames in one message: a delayed spectator's; each frame is in `frames`). */
  bundles = 0;
  welcome: WelcomeMessage | null = null;
  closed: { code: number; reason: string } | null = null;
  private readonly w = new BinaryWriter();
  private readonly receipts = new ReceiptCounter();
  /** Confirms what it reads, as the SDK does; false plays a client that never confirms. */
  confirmReads = true;
  private seq = 0;
  private statsWaiters = new Map<number, (json: unknown) => void>();
  private nextStatsId = 1;
  readonly opened: Promise<void>;
  readonly done: Promise<{ code: number; reason: string }>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.binaryType = "nodebuffer";
    this.opened = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
    });
    this.done = new Promise((resolve) => {
      this.ws.on("close", (code, reason) => {
        this.closed = { code, reason: reason.toString() };
        resolve(this.closed);
      });
    });
    this.ws.on("error", () => {});
    this.ws.on("message", (data: Buffer) => {
      if (this.receipts.read(this.ws, data) && this.confirmReads) this.ws.send(encodeReceipt(this.w.reset(), this.receipts.messages, this.receipts.units).toBytes());
      this.raw.push(new Uint8Array(data));
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const at = performance.now();
      if (isBundle(bytes)) {
        const frames = readBundle(bytes);
        if (isDecodeError(frames)) throw frames;
        this.bundles++;
        for (const f of frames) this.take(f, at);
      } else this.take(bytes, at);
    });
  }

  /** One server message (a frame of a bundle is one too, arrived at its bundle's time). */
  private take(bytes: Uint8Array, at: number): void {
    const m = decodeServerMessage(bytes);
    if (isDecodeError(m)) throw m;
    if (m.kind === "welcome") {
      this.welcome = m;
      // As the SDK does: a seat that comes back has applied inputs up to lastSeq; this socket's seqs go on above it.
      this.seq = Math.max(this.seq, m.lastSeq);
    }
    else if (m.kind === "frame") this.frames.push({ at, frame: { ...m, body: m.body && new Uint8Array(m.body), events: m.events.map((e) => new Uint8Array(e)) } });
    else if (m.kind === "error") this.errors.push(m);
    else if (m.kind === "stats") this.statsWaiters.get(m.requestId)?.(m.stats);
  }

  /** Opens, says hello and waits for the welcome or the close, whichever comes first. */
  async join(name = "it", token = ""): Promise<WelcomeMessage | null> {
    await this.opened;
    this.ws.send(encodeHello(this.w.reset(), { version: PROTOCOL_VERSION, token, name }).toBytes());
    const deadline = Date.now() + 10_000;
    while (!this.welcome && !this.closed && Date.now() < deadline) await sleep(10);
    return this.welcome;
  }

  /** Sends one input with the next sequence number; returns the seq. */
  sendInput(payload: Uint8Array): number {
    const seq = ++this.seq;
    this.ws.send(encodeInputs(this.w.reset(), [{ seq, payload }]).toBytes());
    return seq;
  }

  /** Sends raw bytes (for hostile tests). */
  sendRaw(bytes: Uint8Array | string): void {
    this.ws.send(bytes);
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Highest ack received so far (-1 if none). */
  get highestAck(): number {
    let a = -1;
    for (const f of this.frames) if (f.frame.ackSeq > a) a = f.frame.ackSeq;
    return a;
  }

  /** Asks the room for `tk:stats`. */
  stats(timeoutMs = 5000): Promise<any> {
    const id = this.nextStatsId++;
    this.ws.send(encodeStatsRequest(this.w.reset(), id).toBytes());
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("stats timed out")), timeoutMs);
      this.statsWaiters.set(id, (json) => {
        clearTimeout(t);
        resolve(json);
      });
    });
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Median of a list (0 for an empty list). */
export function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/** Gaps between consecutive frame arrivals. */
export function frameGaps(frames: TimedFrame[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < frames.length; i++) gaps.push(frames[i]!.at - frames[i - 1]!.at);
  return gaps;
}
