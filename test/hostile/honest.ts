import WebSocket from "ws";
import {
  BinaryWriter,
  Kind,
  PROTOCOL_VERSION,
  ReceiptCounter,
  decodeServerMessage,
  encodeHello,
  encodeInput,
  encodeLeave,
  encodeReceipt,
  encodeStatsRequest,
  isDecodeError,
} from "@tikron/protocol";
import { agarInputs } from "@tikron/games/schemas";

/** How one honest join ended. */
export type JoinOutcome = "joined" | "refused" | "http_refused" | "timeout";

/**
 * An honest agar player for the hostile suite: joins once (no retries, so every refusal
 * counts), steers at 20 inputs/s, confirms what it reads as the SDK does, and measures each
 * input's ack latency (send → the first frame whose ack covers it).
 */
export class HonestPlayer {
  outcome: JoinOutcome | null = null;
  closeCode = 0;
  readonly ackMs: number[] = [];
  frames = 0;
  private ws: WebSocket | null = null;
  private seq = 0;
  private readonly sentAt: number[] = [];
  private acked = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly w = new BinaryWriter(64);
  private readonly pw = new BinaryWriter(16);
  private readonly receipts = new ReceiptCounter();
  private statsWaiter: ((stats: unknown) => void) | null = null;

  constructor(
    private readonly url: string,
    private readonly name: string,
  ) {}

  /** Opens, says hello, and resolves with the outcome (bounded by `timeoutMs`). */
  join(timeoutMs = 5_000): Promise<JoinOutcome> {
    return new Promise((resolve) => {
      const done = (o: JoinOutcome) => {
        if (this.outcome === null) {
          this.outcome = o;
          resolve(o);
        }
      };
      const timer = setTimeout(() => done("timeout"), timeoutMs);
      const ws = new WebSocket(this.url, { perMessageDeflate: false });
      this.ws = ws;
      ws.binaryType = "nodebuffer";
      ws.on("unexpected-response", () => {
        clearTimeout(timer);
        done("http_refused");
        ws.terminate();
      });
      ws.on("error", () => {});
      ws.on("open", () => ws.send(encodeHello(this.w.reset(), { version: PROTOCOL_VERSION, token: "", name: this.name }).toBytes()));
      ws.on("close", (code) => {
        this.closeCode = code;
        this.stop();
        clearTimeout(timer);
        done("refused");
      });
      ws.on("message", (data: Buffer) => {
        if (this.receipts.read(ws, data)) ws.send(encodeReceipt(this.w.reset(), this.receipts.messages, this.receipts.units).toBytes());
        const m = decodeServerMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        if (isDecodeError(m)) return;
        if (m.kind === "stats") {
          this.statsWaiter?.(m.stats);
          this.statsWaiter = null;
        } else if (m.kind === "welcome") {
          clearTimeout(timer);
          done("joined");
        } else if (m.kind === "frame" && data[0] === Kind.Frame) {
          this.frames++;
          if (m.ackSeq > this.acked) {
            const now = performance.now();
            for (let s = this.acked + 1; s <= m.ackSeq; s++) {
              const t = this.sentAt[s];
              if (t !== undefined) this.ackMs.push(now - t);
            }
            this.acked = m.ackSeq;
          }
        }
      });
    });
  }

  /** Steers at 20 inputs/s until {@link stop}. */
  steer(): void {
    if (this.timer || this.outcome !== "joined") return;
    this.timer = setInterval(() => {
      const ws = this.ws;
      if (!ws || ws.readyState !== WebSocket.OPEN) return;
      const a = this.seq * 0.3;
      const payload = agarInputs.encode({ dx: Math.cos(a), dy: Math.sin(a), boost: false }, this.pw);
      this.sentAt[++this.seq] = performance.now();
      ws.send(encodeInput(this.w.reset(), this.seq, payload).toBytes());
    }, 50);
  }

  /** The room's `tk:stats` snapshot as this player's socket sees it, or null (not joined, or no answer within 2 s). */
  roomStats(): Promise<Record<string, unknown> | null> {
    const ws = this.ws;
    if (this.outcome !== "joined" || !ws || ws.readyState !== WebSocket.OPEN) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), 2_000);
      this.statsWaiter = (stats) => {
        clearTimeout(timer);
        resolve(stats as Record<string, unknown>);
      };
      ws.send(encodeStatsRequest(this.w.reset(), 1).toBytes());
    });
  }

  /** Sends `data` as it is on the player's socket (a hostile frame); resolves with the socket's close code. */
  sendRaw(data: Uint8Array): Promise<number> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.resolve(this.closeCode);
    const closed = new Promise<number>((r) => ws.once("close", (code: number) => r(code)));
    ws.send(data);
    return closed;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Leaves the room (seat freed) and closes. */
  leave(): void {
    this.stop();
    const ws = this.ws;
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(encodeLeave(this.w.reset()).toBytes());
    setTimeout(() => ws?.terminate(), 200);
  }
}
