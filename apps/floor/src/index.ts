/**
 * The platform floor: the cheapest Durable Object that moves the same traffic as a Tikron room.
 *
 * A room's CPU is only meaningful beside what the platform costs for the same sockets and
 * messages. This object accepts the same URLs (`/rooms/:kind/:id`), answers hello with a real
 * WELCOME, reads each INPUT frame only as far as its last seq, and every flush interval sends
 * each client one FRAME of a fixed size carrying its ack — no game, no AOI, no encoder, no rate
 * limits. `PERFORMANCE.md` states room CPU as a multiple of this object's CPU in the same run.
 *
 * Room options that shape traffic come from the query like the gateway's DEV_MODE overrides:
 * `syncIntervalMs` (default 50), `frameBytes` (default 75, the agar frame at 100 players) and
 * `api=hibernation` to accept sockets with `ctx.acceptWebSocket` instead of `accept()`.
 *
 * `/transport/*?run=<id>` reaches the relay-transport bench (`transport/simFloor.ts`): one
 * simulation object per run id and its relays, for comparing transports between objects.
 */
import { DurableObject } from "cloudflare:workers";
import type { TransportEnv } from "./transport/simFloor";
import { FrameWriter, FrameFlag, Kind, PROTOCOL_VERSION, beginFrame, encodeStats, encodeWelcome, endFrame, writeFrameAck } from "@tikron/protocol";

interface Env extends TransportEnv {
  FLOORS: DurableObjectNamespace<FloorObject>;
}

export { SimFloor } from "./transport/simFloor";
export { RelayFloor } from "./transport/relayFloor";

const ROOM_PATH = /^\/rooms\/([^/]+)\/([^/]+)\/?$/;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return Response.json({ ok: true, floor: true });
    if (url.pathname.startsWith("/transport/")) {
      const run = url.searchParams.get("run");
      if (!run) return new Response("a transport bench request needs ?run=<id>", { status: 400 });
      return env.SIMS.get(env.SIMS.idFromName(`transport:${run}`)).fetch(request);
    }
    const m = ROOM_PATH.exec(url.pathname);
    if (!m) return new Response("not found", { status: 404 });
    return env.FLOORS.get(env.FLOORS.idFromName(`${m[1]}:${m[2]}`)).fetch(request);
  },
} satisfies ExportedHandler<Env>;

/** One connected client: what the floor must remember to ack it. */
interface FloorClient {
  ws: WebSocket;
  playerId: number;
  lastSeq: number;
  ackedSeq: number;
}

/** A bare object with a room's traffic shape (see the file comment). */
export class FloorObject extends DurableObject<Env> {
  private readonly clients = new Map<WebSocket, FloorClient>();
  private readonly writer = new FrameWriter(512);
  private readonly epoch = Date.now();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushStart = 0;
  private nextPlayerId = 1;
  private tick = 0;
  private syncIntervalMs = 50;
  private padBytes = 0;
  private frameBytes = 75;
  private hibernation = false;
  /** The last 1,200 send-loop durations (one minute at 20 Hz), for the stats reply's flush p99. */
  private readonly flushMs = new Float64Array(1200);
  private flushCount = 0;

  override fetch(request: Request): Response {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    if (this.clients.size === 0 && this.timer === null) this.configure(new URL(request.url).searchParams);
    const pair = new WebSocketPair();
    const server = pair[1];
    if (this.hibernation) {
      this.ctx.acceptWebSocket(server);
    } else {
      server.binaryType = "arraybuffer";
      server.accept();
      server.addEventListener("message", (e) => this.onMessage(server, e.data as ArrayBuffer | string));
      server.addEventListener("close", () => this.onClose(server));
      server.addEventListener("error", () => this.onClose(server));
    }
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    this.onMessage(ws, message);
  }

  override webSocketClose(ws: WebSocket): void {
    this.onClose(ws);
  }

  override webSocketError(ws: WebSocket): void {
    this.onClose(ws);
  }

  private configure(q: URLSearchParams): void {
    const sync = Number(q.get("syncIntervalMs") ?? 50);
    const frame = Number(q.get("frameBytes") ?? 75);
    this.syncIntervalMs = Number.isInteger(sync) && sync >= 10 && sync <= 1000 ? sync : 50;
    this.frameBytes = Number.isInteger(frame) && frame >= 16 && frame <= 4096 ? frame : 75;
    this.hibernation = q.get("api") === "hibernation";
  }

  private onMessage(ws: WebSocket, data: ArrayBuffer | string): void {
    if (typeof data === "string") return;
    const bytes = new Uint8Array(data);
    const client = this.clients.get(ws);
    if (bytes[0] === Kind.Input && client) {
      client.lastSeq = lastInputSeq(bytes, client.lastSeq);
    } else if (bytes[0] === Kind.Hello && !client) {
      this.join(ws);
    } else if (bytes[0] === Kind.StatsRequest) {
      const json = JSON.stringify({
        kind: "floor", ccu: this.clients.size, syncIntervalMs: this.syncIntervalMs, frameBytes: this.frameBytes,
        api: this.hibernation ? "hibernation" : "standard",
        // Same key as a room's tk:stats, so the load tool reads the floor's send loop like a room's flush.
        flush: { p99: this.flushP99(), timing: "whole milliseconds under workerd, like a room's" },
      });
      const requestId = bytes.length >= 5 ? new DataView(data).getUint32(1, true) : 0;
      ws.send(encodeStats(this.writer.reset(), requestId, json).toBytes());
    } else if (bytes[0] === Kind.Leave) {
      ws.close(1000, "left");
      this.onClose(ws);
    }
  }

  private join(ws: WebSocket): void {
    const playerId = this.nextPlayerId++;
    this.clients.set(ws, { ws, playerId, lastSeq: 0, ackedSeq: 0 });
    const now = Date.now();
    const w = encodeWelcome(this.writer.reset(), {
      version: PROTOCOL_VERSION, playerId, token: "floor", tickMs: this.syncIntervalMs, syncIntervalMs: this.syncIntervalMs,
      serverTime: now, roomEpoch: this.epoch, reconnected: false, json: false, roomKind: "floor", cap: 65535, schemaHash: 0, lastSeq: 0,
    });
    ws.send(w.toBytes());
    if (this.timer === null) {
      this.flushStart = Date.now();
      this.tick = 0;
      this.scheduleFlush();
    }
  }

  private onClose(ws: WebSocket): void {
    this.clients.delete(ws);
    if (this.clients.size === 0 && this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /** Absolute deadlines (start + k·interval) like the room's loop, so timer lateness does not drift. */
  private scheduleFlush(): void {
    const now = Date.now();
    // After a stall, skip the missed flushes instead of sending a burst.
    if (now - (this.flushStart + this.tick * this.syncIntervalMs) > this.syncIntervalMs) this.tick = Math.floor((now - this.flushStart) / this.syncIntervalMs);
    const next = this.flushStart + (this.tick + 1) * this.syncIntervalMs;
    this.timer = setTimeout(() => {
      this.flush();
      if (this.timer !== null) this.scheduleFlush();
    }, Math.max(0, next - now));
  }

  /** p99 of the recent send loops (ms), or null before the first. */
  private flushP99(): number | null {
    const n = Math.min(this.flushCount, this.flushMs.length);
    if (n === 0) return null;
    const sorted = Array.from(this.flushMs.subarray(0, n)).sort((a, b) => a - b);
    return sorted[Math.min(n - 1, Math.floor(n * 0.99))]!;
  }

  /** One fixed-size FRAME per client: header, ack, and padding standing in for a delta body. */
  private flush(): void {
    const t0 = performance.now();
    this.sendFrames();
    this.flushMs[this.flushCount++ % this.flushMs.length] = performance.now() - t0;
  }

  private sendFrames(): void {
    this.tick++;
    const time = Date.now() - this.epoch;
    const w = this.writer;
    for (const c of this.clients.values()) {
      w.reset();
      const flagsPos = beginFrame(w, this.tick, time);
      let flags = FrameFlag.Delta;
      if (c.lastSeq > c.ackedSeq) {
        writeFrameAck(w, c.lastSeq);
        c.ackedSeq = c.lastSeq;
        flags |= FrameFlag.Ack;
      }
      while (w.offset < this.frameBytes) w.u8(0);
      endFrame(w, flagsPos, flags);
      try {
        c.ws.send(w.toBytes());
      } catch {
        // closed under us; the close event follows
      }
    }
  }
}

/** The highest seq in an INPUT frame (`[kind][count]{[seq][len][payload]}`), skipping payloads. */
function lastInputSeq(b: Uint8Array, last: number): number {
  let pos = 2;
  const count = b[1] ?? 0;
  for (let i = 0; i < count; i++) {
    let seq = 0;
    let shift = 0;
    let x: number;
    do {
      if (pos >= b.length) return last;
      x = b[pos++]!;
      seq += (x & 0x7f) * 2 ** shift;
      shift += 7;
    } while (x & 0x80);
    let len = 0;
    shift = 0;
    do {
      if (pos >= b.length) return last;
      x = b[pos++]!;
      len += (x & 0x7f) * 2 ** shift;
      shift += 7;
    } while (x & 0x80);
    pos += len;
    if (seq > last) last = seq;
  }
  return last;
}
