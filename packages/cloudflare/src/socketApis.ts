import { admissionReply, SocketTable, type BusyMeter, type KeepableRoom, type SeatTicket, type SocketRoom } from "@tikron/core";
import type { RoomRequestMeta } from "./roomRequest";
import { SocketConnection, sendableCloseCode } from "./socketConnection";
import { CloseCode, type SpectateRequest } from "@tikron/protocol";

/**
 * The two ways a room's Durable Object takes WebSockets, chosen once per room by whether its
 * game ticks (see AGENTS.md, "Socket APIs"): {@link StandardSockets} (`accept()` and listeners)
 * for ticking rooms, whose loop keeps the object awake anyway and for which every message
 * through the Hibernation API costs several times more CPU; {@link HibernatingSockets}
 * (`ctx.acceptWebSocket`, attachments) for turn-based rooms, so an idle one sleeps and its
 * sockets are re-seated when it wakes. Both hand the room the same `open`/`message`/`closed`.
 * A relay of a relayed room (relayHost.ts) is a `SocketRoom` too and takes its sockets through
 * the same standard table: one socket table for every role an object plays.
 */
export interface RoomSocketApi {
  /** The API's name in DEV_MODE stats (`adapter.socketApi`). */
  readonly name: "standard" | "hibernation";
  /** Open sockets. */
  readonly count: number;
  /**
   * A join the object takes here: admitted by the room (else its refusal, `admissionReply`),
   * then a socket pair made, its server end accepted and opened in the room (101); a
   * spectator's (`spectate`: core/src/spectate) opened without a seat.
   */
  join(meta: RoomRequestMeta, spectate?: SpectateRequest | null): Response;
  /** Accepts the server end of a new socket pair and opens it in the room. */
  accept(server: WebSocket, meta: RoomRequestMeta): void;
  /** A socket took a seat (the room's `onSeated` hook). */
  seated(connId: number, ticket: SeatTicket): void;
  /** Re-opens, in a room just rebuilt, the sockets that outlived the object's memory. */
  reattach(): void;
  /** A message on a hibernatable socket (`webSocketMessage`). */
  message(ws: WebSocket, data: string | ArrayBuffer): void;
  /** The peer closed a socket: the room holds or frees the seat; the close is finished here. */
  closed(ws: WebSocket, code: number, reason: string): void;
  /**
   * A socket failed (`error`): the room hears of it as an abnormal close (1006), or, when the
   * runtime refused a frame over its own limit (workerd: 32 MiB), as 1009, an oversized frame.
   */
  failed(ws: WebSocket, error?: unknown): void;
}

/**
 * Whether a socket's error is the runtime refusing a frame over its own size limit (workerd's
 * "WebSocket protocol error; protocolError.statusCode = 1009; … Message is too large"): an
 * `ErrorEvent` (standard sockets) or the error itself (`webSocketError`). workerd still logs the
 * error itself (its read loop rethrows it after the event); the room counts it.
 */
export function isOversizedFrame(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const text = `${(error as { message?: unknown }).message ?? ""} ${(error as { error?: { message?: unknown } }).error?.message ?? ""}`;
  return /statusCode = 1009|Message is too large/.test(text);
}

/** Sees every backlog reading of a socket (DEV_MODE stats: what the runtime reported). */
export type ObserveBuffered = (bytes: number, reported: boolean) => void;

/** Finishes a close the peer began (the runtime's socket: a sendable code). */
function closeSocket(ws: WebSocket, code: number): void {
  try {
    ws.close(sendableCloseCode(code), "closing");
  } catch {
    // already closed
  }
}

/** A room's WebSockets (core `SocketTable`) and how a join becomes one: the table of both socket APIs. */
abstract class WorkersSockets<R extends SocketRoom = SocketRoom> extends SocketTable<WebSocket, R> {
  constructor(
    room: R,
    protected readonly observeBuffered: ObserveBuffered,
  ) {
    super(room, closeSocket);
  }

  abstract accept(server: WebSocket, meta: RoomRequestMeta): void;

  /** Accepts a spectator's socket; a table whose rooms cannot be watched closes it with `bad_request`. */
  spectate(server: WebSocket, _request: SpectateRequest): void {
    server.accept();
    server.close(CloseCode.bad_request, "this room takes no spectators");
  }

  join(meta: RoomRequestMeta, spectate?: SpectateRequest | null): Response {
    const refusal = this.room.admitSocket(meta.playerId, meta.address);
    if (refusal) {
      const r = admissionReply(refusal);
      return new Response(r.body, { status: r.status, headers: r.headers });
    }
    const pair = new WebSocketPair();
    if (spectate) this.spectate(pair[1], spectate);
    else this.accept(pair[1], meta);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override failed(ws: WebSocket, error?: unknown): void {
    super.failed(ws, isOversizedFrame(error) ? 1009 : 1006);
  }

  protected connection(ws: WebSocket): SocketConnection {
    return new SocketConnection(ws, this.observeBuffered);
  }
}

/**
 * Ticking rooms and relays: the standard API. Messages, closes and errors arrive through the
 * socket's own listeners; the sockets die with the object, so there is nothing to persist or
 * re-attach.
 */
export class StandardSockets extends WorkersSockets implements RoomSocketApi {
  readonly name = "standard";

  /** @param busy the object's meter: each socket event is an entry of the object. */
  constructor(room: SocketRoom, observeBuffered: ObserveBuffered, private readonly busy: BusyMeter) {
    super(room, observeBuffered);
  }

  accept(server: WebSocket, meta: RoomRequestMeta): void {
    // Since compatibility date 2026-03-17 standard sockets default to Blob; the room reads bytes.
    server.binaryType = "arraybuffer";
    server.accept();
    const id = this.room.open(this.connection(server), meta.playerId, meta.address, meta.reservation, meta.claims);
    this.track(server, id);
    const { busy } = this;
    server.addEventListener("message", busy.wrap((e: MessageEvent) => this.room.message(id, e.data as ArrayBuffer | string), "socket"));
    server.addEventListener("close", busy.wrap((e: CloseEvent) => this.closed(server, e.code, e.reason), "socket"));
    server.addEventListener("error", busy.wrap((e: Event) => this.failed(server, e), "socket"));
  }

  seated(): void {}

  reattach(): void {}

  /** Accepts a spectator's socket (no seat; core/src/spectate): the same listeners as a player's. */
  override spectate(server: WebSocket, request: SpectateRequest): void {
    server.binaryType = "arraybuffer";
    server.accept();
    const conn = this.connection(server);
    const id = this.room.spectate ? this.room.spectate(conn, request) : -1;
    if (id < 0) {
      if (!this.room.spectate) conn.close(CloseCode.bad_request, "this room takes no spectators");
      return;
    }
    this.track(server, id);
    const { busy } = this;
    server.addEventListener("message", busy.wrap((e: MessageEvent) => this.room.message(id, e.data as ArrayBuffer | string), "socket"));
    server.addEventListener("close", busy.wrap((e: CloseEvent) => this.closed(server, e.code, e.reason), "socket"));
    server.addEventListener("error", busy.wrap((e: Event) => this.failed(server, e), "socket"));
  }
}

/** What each hibernatable socket carries, so a restarted object can rebuild its room. */
export interface SocketAttachment {
  /** The request that opened the socket (for its seat: the request that made the room). */
  meta: RoomRequestMeta;
  /** The seat the socket took, once it took one. */
  ticket: SeatTicket | null;
}

/**
 * Turn-based rooms: the Hibernation API, so an idle room (nobody moving, the keepalive answered
 * by the runtime's auto-response) sleeps and costs nothing. Events arrive as the object's
 * `webSocketMessage/Close/Error`; each socket's attachment names its seat, which is how a woken
 * object re-seats it ({@link reattach}).
 */
export class HibernatingSockets extends WorkersSockets<SocketRoom & Pick<KeepableRoom, "adopt">> implements RoomSocketApi {
  readonly name = "hibernation";

  constructor(
    room: SocketRoom & Pick<KeepableRoom, "adopt">,
    observeBuffered: ObserveBuffered,
    private readonly ctx: DurableObjectState,
    /** The request that made the room: the meta of every seated socket's attachment. */
    private readonly roomMeta: RoomRequestMeta,
  ) {
    super(room, observeBuffered);
  }

  accept(server: WebSocket, meta: RoomRequestMeta): void {
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ meta, ticket: null } satisfies SocketAttachment);
    this.track(server, this.room.open(this.connection(server), meta.playerId, meta.address, meta.reservation, meta.claims));
  }

  seated(connId: number, ticket: SeatTicket): void {
    // The ticket holds the seat's player record (claims included): the room's making meta goes
    // without the claims of whoever made it (an attachment holds at most 2 KiB).
    const { claims: _claims, ...meta } = this.roomMeta;
    this.socketOf(connId)?.serializeAttachment({ meta, ticket } satisfies SocketAttachment);
  }

  reattach(): void {
    for (const ws of this.ctx.getWebSockets()) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      const conn = this.connection(ws);
      this.track(ws, att?.ticket ? this.room.adopt(conn, att.ticket) : this.room.open(conn, att?.meta.playerId, undefined, undefined, att?.meta.claims));
    }
  }
}
