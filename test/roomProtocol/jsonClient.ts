import WebSocket from "ws";
import { JSON_KEEPALIVE, PROTOCOL_VERSION, ReceiptCounter } from "@tikron/protocol";
import { sleep } from "./rawClient";

/** Polls `cond` every 20 ms until it holds or `timeoutMs` passes; returns its last value. */
export async function until(cond: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await sleep(20);
  return cond();
}

/** JSON text-mode client (ttt-json) for protocol tests: every message kept, parsed. */
export class JsonClient {
  readonly ws: WebSocket;
  readonly messages: any[] = [];
  private readonly receipts = new ReceiptCounter();
  closed: number | null = null;
  /** Last input seq sent (a reconnecting test may set it to go on from its old seat). */
  seq = 0;
  private readonly opened: Promise<void>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
    });
    this.ws.on("error", () => {});
    this.ws.on("close", (code) => (this.closed = code));
    this.ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      this.messages.push(JSON.parse(text));
      if (text !== JSON_KEEPALIVE && this.receipts.read(this.ws, text)) {
        this.ws.send(JSON.stringify({ t: "rc", m: this.receipts.messages, b: this.receipts.units }));
      }
    });
  }

  /** Says hello (with the player's join options, when given) and waits for the welcome (or a close); null when none came. */
  async join(name: string, token = "", options?: object): Promise<any> {
    await this.opened;
    this.ws.send(JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token, name, ...(options ? { options } : {}) }));
    await until(() => this.messages.some((m) => m.t === "welcome") || this.closed !== null, 10_000);
    return this.messages.find((m) => m.t === "welcome") ?? null;
  }

  /** Sends one input with the next seq. */
  input(data: unknown): void {
    this.ws.send(JSON.stringify({ t: "input", seq: ++this.seq, data }));
  }

  /** The newest state view received. */
  state(): any {
    return this.messages.filter((m) => m.t === "state" && m.state !== undefined).at(-1)?.state;
  }

  /** Every error received. */
  errors(): any[] {
    return this.messages.filter((m) => m.t === "error");
  }

  /** Sends room message `type` with request id `id` and waits for its reply (its `data`, or the refusal). */
  async request(type: string, id: number, data?: unknown): Promise<any> {
    this.ws.send(JSON.stringify({ t: "msg", type, id, ...(data !== undefined ? { data } : {}) }));
    await until(() => this.messages.some((m) => m.t === "reply" && m.id === id));
    const reply = this.messages.find((m) => m.t === "reply" && m.id === id);
    return reply && "data" in reply ? reply.data : reply;
  }

  /** Asks for `tk:stats` and waits for the answer. */
  async stats(): Promise<any> {
    this.ws.send(JSON.stringify({ t: "stats", id: 1 }));
    await until(() => this.messages.some((m) => m.t === "stats"));
    return this.messages.find((m) => m.t === "stats")?.stats;
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }
}
