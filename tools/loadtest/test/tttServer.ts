import { testPlayer } from "@tikron/core/testing";
import type { AddressInfo } from "node:net";
import { detachedContext } from "@tikron/core";
import { TicTacToeGame } from "@tikron/games";
import { CloseCode, ErrorCode, JSON_KEEPALIVE, PROTOCOL_VERSION, decodeJsonClientMessage, isDecodeError, toJsonWelcome } from "@tikron/protocol";
import { WebSocketServer, type WebSocket } from "ws";

/**
 * A loopback stand-in for a `ttt-json` room, for fast tests of the text-mode client: the real
 * game rules (`TicTacToeGame`) behind the JSON protocol as the room speaks it (welcome, then
 * `state` with `ack` and the whole view on every change, errors by name, pong, stats, cap 2 with
 * room_full + 4002). Not the room core: the real room is covered by the integration tests.
 */
export interface TttServer {
  url: string;
  /** Totals since start. */
  counters(): { inputs: number; refused: number; pings: number };
  /**
   * Makes the room treat the next `n` moves as if the player had sent them out of turn:
   * refused with not_your_turn (a correct client never sees that from the real room).
   */
  refuseNextMoves(n: number): void;
  close(): Promise<void>;
}

interface Seat {
  ws: WebSocket;
  playerId: number;
  lastSeq: number;
  ackedSeq: number;
}

interface TttRoom {
  game: TicTacToeGame;
  seats: Seat[];
  dirty: boolean;
  epoch: number;
  inputs: number;
}

/** Starts the stand-in on 127.0.0.1 (any free port). */
export async function startTttServer(): Promise<TttServer> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((r) => wss.once("listening", r));
  const rooms = new Map<string, TttRoom>();
  const totals = { inputs: 0, refused: 0, pings: 0 };
  let refuseMoves = 0;
  let nextPlayerId = 1;

  const roomFor = (path: string): TttRoom => {
    let room = rooms.get(path);
    if (!room) {
      const game = new TicTacToeGame();
      const created: TttRoom = { game, seats: [], dirty: false, epoch: Date.now(), inputs: 0 };
      game.init(detachedContext({ now: () => Date.now(), markChanged: () => void (created.dirty = true) }));
      rooms.set(path, created);
      room = created;
    }
    return room;
  };

  // The real room answers a change with one message per seat carrying ack and view together.
  const flush = (room: TttRoom): void => {
    const dirty = room.dirty;
    room.dirty = false;
    for (const s of room.seats) {
      const msg: Record<string, unknown> = { t: "state", tick: 0, time: Date.now() - room.epoch };
      let any = false;
      if (s.lastSeq > s.ackedSeq) {
        msg.ack = s.lastSeq;
        s.ackedSeq = s.lastSeq;
        any = true;
      }
      if (dirty) {
        msg.state = room.game.viewFor(s.playerId);
        any = true;
      }
      if (any) s.ws.send(JSON.stringify(msg));
    }
  };

  wss.on("connection", (ws, req) => {
    const room = roomFor(req.url ?? "/");
    let seat: Seat | null = null;
    const error = (name: keyof typeof ErrorCode, reason: string): void => ws.send(JSON.stringify({ t: "error", code: ErrorCode[name], name, reason }));
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (isBinary) return error("bad_frame", "binary frame on a JSON room");
      const msg = decodeJsonClientMessage(data.toString("utf8"));
      if (isDecodeError(msg)) return error("bad_frame", msg.message);
      switch (msg.t) {
        case "hello": {
          if (room.seats.length >= 2) {
            totals.refused++;
            error("room_full", "room is full (2 seats)");
            return ws.close(CloseCode.room_full, "room full");
          }
          seat = { ws, playerId: nextPlayerId++, lastSeq: 0, ackedSeq: 0 };
          room.seats.push(seat);
          room.game.join(testPlayer(seat.playerId, msg.name));
          const now = Date.now();
          const welcome = toJsonWelcome({
            version: PROTOCOL_VERSION,
            playerId: seat.playerId,
            token: "t",
            tickMs: 50,
            syncIntervalMs: 50,
            serverTime: now,
            roomEpoch: room.epoch,
            reconnected: false,
            json: true,
            roomKind: "ttt-json",
            cap: 2,
            schemaHash: 0,
            lastSeq: 0,
          });
          ws.send(JSON.stringify(welcome));
          return flush(room);
        }
        case "input": {
          if (!seat) return error("not_joined", "input before hello");
          totals.inputs++;
          room.inputs++;
          seat.lastSeq = msg.seq;
          const decoded = room.game.decodeInput(msg.data);
          const isMove = typeof msg.data === "object" && msg.data !== null && "cell" in msg.data;
          const result = "rejected" in decoded ? decoded : isMove && refuseMoves > 0 ? (refuseMoves--, { rejected: true as const, code: "not_your_turn" as const, reason: "test" }) : room.game.applyInput(seat.playerId, decoded);
          if (result && "rejected" in result) error(result.code, result.reason);
          return flush(room);
        }
        case "ping":
          totals.pings++;
          return ws.send(JSON.stringify({ t: "pong", ct: msg.ct, st: Date.now() }));
        case "ka":
          totals.pings++;
          return ws.send(JSON_KEEPALIVE);
        case "stats":
          return ws.send(JSON.stringify({ t: "stats", id: msg.id, stats: { kind: "ttt-json", ccu: room.seats.length, inputs: { received: room.inputs } } }));
        case "leave":
          return ws.close(CloseCode.normal, "left");
      }
    });
    ws.on("close", () => {
      if (!seat) return;
      room.seats = room.seats.filter((s) => s !== seat);
      room.game.leave(seat.playerId);
      flush(room);
    });
  });

  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    counters: () => ({ ...totals }),
    refuseNextMoves: (n) => {
      refuseMoves = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}
