import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import {
  BinaryWriter,
  CloseCode,
  ErrorCode,
  FrameFlag,
  Kind,
  PROTOCOL_VERSION,
  beginFrame,
  decodeClientMessage,
  encodeError,
  encodePong,
  encodeStats,
  encodeWelcome,
  endFrame,
  isDecodeError,
  writeFrameAck,
} from "@tikron/protocol";
import { WebSocketServer, type WebSocket } from "ws";
import { expectedGapMs } from "./metrics/gapJitter";
import { newHistogram, recordMs, summarize } from "./metrics/histogram";

/** Options of the loopback echo server. */
export interface EchoServerOptions {
  /** 0 = any free port. */
  port?: number;
  /** Loopback only by default; the echo server is a benchmark and test fixture, not a service. */
  host?: string;
  tickMs?: number;
  syncIntervalMs?: number;
  /** Seats per room; the (cap+1)-th hello gets ERROR room_full and close 4002. */
  cap?: number;
  /** "flush": acks ride on the periodic frames (like a room queuing inputs). "immediate": one ack-only frame per INPUT. */
  ackMode?: "flush" | "immediate";
  /** Opaque delta bytes per periodic frame (a small state update). */
  deltaBytes?: number;
}

/** A running echo server. */
export interface EchoServer {
  readonly port: number;
  /** ws://host:port (append /rooms/<kind>/<id>). */
  readonly url: string;
  /** Closes `count` joined connections (all when omitted) with `code`, as a misbehaving room would. */
  dropClients(code: number, count?: number): number;
  /** Totals since start. */
  counters(): { connections: number; joined: number; refused: number; inputs: number; frames: number };
  close(): Promise<void>;
}

interface Conn {
  ws: WebSocket;
  joined: boolean;
  highestSeq: number;
  ackedSeq: number;
}

interface Room {
  kind: string;
  tickMs: number;
  syncIntervalMs: number;
  cap: number;
  epoch: number;
  tick: number;
  conns: Set<Conn>;
  joined: number;
  timer: ReturnType<typeof setInterval> | null;
  flushH: ReturnType<typeof newHistogram>;
  stats: { joins: number; refused: number; inputs: number; acks: number; frames: number; bytes: number; closes: Record<string, number> };
}

const DELTA_FILL = 0x5a;

function intParam(q: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const v = q.get(name);
  if (v === null) return fallback;
  const n = Number(v);
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

/**
 * Trivial server speaking the room protocol on loopback: welcome on hello, every input acked,
 * small periodic frames, stats on request, room_full above the cap. It simulates nothing, so a
 * run against it measures the generator (and loopback), not a game.
 */
export async function startEchoServer(opts: EchoServerOptions = {}): Promise<EchoServer> {
  const host = opts.host ?? "127.0.0.1";
  const ackMode = opts.ackMode ?? "flush";
  const delta = new Uint8Array(opts.deltaBytes ?? 16).fill(DELTA_FILL);
  const rooms = new Map<string, Room>();
  const writer = new BinaryWriter(1024);
  const totals = { connections: 0, joined: 0, refused: 0, inputs: 0, frames: 0 };

  const http: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/health") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 });

  // Frames are sent from the shared writer: ws keeps a reference to unmasked server data until
  // the socket flushes it, so each send gets its own copy.
  const send = (c: Conn, bytes: Uint8Array, room: Room | null): void => {
    if (c.ws.readyState !== c.ws.OPEN) return;
    c.ws.send(bytes.slice());
    if (room) room.stats.bytes += bytes.length;
  };

  const flush = (room: Room): void => {
    const t0 = performance.now();
    room.tick = Math.floor((Date.now() - room.epoch) / room.tickMs);
    const time = room.tick * room.tickMs;
    for (const c of room.conns) {
      if (!c.joined) continue;
      const w = writer.reset();
      const flagsPos = beginFrame(w, room.tick, time);
      let flags = FrameFlag.Delta;
      if (c.highestSeq > c.ackedSeq) {
        writeFrameAck(w, c.highestSeq);
        c.ackedSeq = c.highestSeq;
        flags |= FrameFlag.Ack;
        room.stats.acks++;
      }
      w.bytes(delta);
      endFrame(w, flagsPos, flags);
      send(c, w.peek(), room);
      room.stats.frames++;
      totals.frames++;
    }
    recordMs(room.flushH, performance.now() - t0);
  };

  const getRoom = (kind: string, id: string, q: URLSearchParams): Room => {
    const key = `${kind}/${id}`;
    let room = rooms.get(key);
    if (!room) {
      const tickMs = intParam(q, "tickMs", opts.tickMs ?? 50, 1, 10_000);
      room = {
        kind,
        tickMs,
        syncIntervalMs: intParam(q, "syncIntervalMs", opts.syncIntervalMs ?? tickMs, 1, 60_000),
        cap: intParam(q, "cap", opts.cap ?? 1000, 1, 65_535),
        epoch: Date.now(),
        tick: 0,
        conns: new Set(),
        joined: 0,
        timer: null,
        flushH: newHistogram(),
        stats: { joins: 0, refused: 0, inputs: 0, acks: 0, frames: 0, bytes: 0, closes: {} },
      };
      const r = room;
      r.timer = setInterval(() => flush(r), expectedGapMs(r.tickMs, r.syncIntervalMs));
      rooms.set(key, room);
    }
    return room;
  };

  const statsJson = (room: Room): string => {
    const f = summarize(room.flushH);
    return JSON.stringify({
      server: "echo",
      ccu: room.joined,
      joins: room.stats.joins,
      joinsRefused: room.stats.refused,
      inputs: { received: room.stats.inputs, processed: room.stats.inputs, rejected: 0 },
      acks: room.stats.acks,
      frames: room.stats.frames,
      bytes: room.stats.bytes,
      closes: room.stats.closes,
      flush: { p50: f.p50, p95: f.p95, p99: f.p99, max: f.max, count: f.count },
    });
  };

  const onMessage = (room: Room, c: Conn, data: Buffer): void => {
    // Inputs are the hot path: read seqs in place instead of decoding into objects.
    if (data[0] === Kind.Input && c.joined) {
      const n = data[1];
      let pos = 2;
      for (let i = 0; i < n; i++) {
        let seq = 0;
        let shift = 0;
        let b: number;
        do {
          b = data[pos++];
          seq |= (b & 0x7f) << shift;
          shift += 7;
        } while (b & 0x80 && pos < data.length);
        seq >>>= 0;
        let len = 0;
        shift = 0;
        do {
          b = data[pos++];
          len |= (b & 0x7f) << shift;
          shift += 7;
        } while (b & 0x80 && pos < data.length);
        pos += len;
        if (seq > c.highestSeq) c.highestSeq = seq;
      }
      room.stats.inputs += n;
      totals.inputs += n;
      if (ackMode === "immediate") {
        const w = writer.reset();
        const flagsPos = beginFrame(w, room.tick, room.tick * room.tickMs);
        writeFrameAck(w, c.highestSeq);
        endFrame(w, flagsPos, FrameFlag.Ack);
        c.ackedSeq = c.highestSeq;
        room.stats.acks++;
        send(c, w.peek(), room);
      }
      return;
    }
    const msg = decodeClientMessage(data);
    if (isDecodeError(msg)) {
      send(c, encodeError(writer.reset(), ErrorCode.bad_frame, msg.message).peek(), room);
      return;
    }
    switch (msg.kind) {
      case "hello": {
        if (c.joined) return;
        if (room.joined >= room.cap) {
          room.stats.refused++;
          totals.refused++;
          send(c, encodeError(writer.reset(), ErrorCode.room_full, "room is full").peek(), room);
          c.ws.close(CloseCode.room_full, "room_full");
          return;
        }
        c.joined = true;
        room.joined++;
        room.stats.joins++;
        totals.joined++;
        const now = Date.now();
        const w = encodeWelcome(writer.reset(), {
          version: PROTOCOL_VERSION,
          playerId: room.stats.joins,
          token: `echo-${room.stats.joins}`,
          tickMs: room.tickMs,
          syncIntervalMs: room.syncIntervalMs,
          serverTime: now,
          roomEpoch: room.epoch,
          reconnected: false,
          json: false,
          roomKind: room.kind,
          cap: room.cap,
          schemaHash: 0,
          lastSeq: 0,
        });
        send(c, w.peek(), room);
        return;
      }
      case "ping":
        send(c, encodePong(writer.reset(), msg.clientTime, Date.now()).peek(), room);
        return;
      case "statsRequest":
        send(c, encodeStats(writer.reset(), msg.requestId, statsJson(room)).peek(), room);
        return;
      case "leave":
        c.ws.close(CloseCode.normal, "left");
        return;
      default:
        return;
    }
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const u = new URL(req.url ?? "/", "http://echo");
    const m = /^\/rooms\/([^/]+)\/([^/]+)$/.exec(u.pathname);
    if (!m) {
      socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const room = getRoom(decodeURIComponent(m[1]), decodeURIComponent(m[2]), u.searchParams);
    wss.handleUpgrade(req, socket, head, (ws) => {
      totals.connections++;
      const c: Conn = { ws, joined: false, highestSeq: 0, ackedSeq: 0 };
      room.conns.add(c);
      ws.on("message", (data: Buffer) => onMessage(room, c, data));
      ws.on("error", () => {});
      ws.on("close", (code: number) => {
        room.conns.delete(c);
        if (c.joined) room.joined--;
        room.stats.closes[String(code)] = (room.stats.closes[String(code)] ?? 0) + 1;
      });
    });
  };
  http.on("upgrade", onUpgrade);

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;

  return {
    port,
    url: `ws://${host}:${port}`,
    dropClients(code: number, count = Number.POSITIVE_INFINITY): number {
      let dropped = 0;
      for (const room of rooms.values()) {
        for (const c of room.conns) {
          if (dropped >= count) return dropped;
          if (!c.joined) continue;
          c.ws.close(code, "dropped by echo server");
          dropped++;
        }
      }
      return dropped;
    },
    counters: () => ({ ...totals }),
    async close(): Promise<void> {
      for (const room of rooms.values()) if (room.timer) clearInterval(room.timer);
      for (const c of wss.clients) c.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
