import { DurableObject } from "cloudflare:workers";
import { Room, type GameDefinition, type RoomHooks, type RoomSessionRecord, type SeatTicket } from "@tikron/core";
import { readRoomMeta, type RoomRequestMeta } from "./roomRequest";
import { SocketConnection, sendableCloseCode } from "./socketConnection";

/** What each hibernatable socket carries, so a restarted object can rebuild its room. */
interface SocketAttachment {
  meta: RoomRequestMeta;
  ticket: SeatTicket | null;
}

/**
 * One Durable Object per room. Hosts a core {@link Room} over the WebSocket Hibernation API:
 * sockets are accepted with `ctx.acceptWebSocket`, events arrive as `webSocketMessage/Close/Error`.
 * Subclasses name the games they host; everything game-specific lives in the core and games.
 *
 * Hibernation: while anyone is connected to a ticking room its loop timer keeps the object
 * awake. An object that does hibernate (idle turn-based rooms) is rebuilt from the sockets'
 * attachments: seats come back with the same ids and tokens; game state starts fresh unless the
 * game checkpoints it.
 */
export abstract class RoomObject<Env = unknown> extends DurableObject<Env> {
  /** The kinds this object can host, by kind name. */
  protected abstract readonly games: Readonly<Record<string, GameDefinition>>;

  private room: Room | null = null;
  private readonly connIds = new Map<WebSocket, number>();
  private readonly sockets = new Map<number, WebSocket>();

  /** Called when a room session ends (last seat freed); override to persist records. */
  protected onSessionEnd(_record: RoomSessionRecord): void {}
  /** Called when a room session starts. */
  protected onSessionStart(_info: { kind: string; roomId: string; startedAt: number }): void {}

  override async fetch(request: Request): Promise<Response> {
    const meta = readRoomMeta(request.headers);
    if (!meta) return new Response("missing room metadata", { status: 400 });
    this.restoreAfterHibernation();
    const url = new URL(request.url);
    if (url.pathname.endsWith("/stats")) {
      return Response.json(this.room ? this.room.snapshot() : { kind: meta.kind, roomId: meta.roomId, ccu: 0, idle: true });
    }
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    const room = this.roomFor(meta);
    if (!room) return new Response(`unknown room kind ${meta.kind}`, { status: 404 });
    const pair = new WebSocketPair();
    const client = pair[0];
    const server = pair[1];
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ meta, ticket: null } satisfies SocketAttachment);
    this.track(server, room.open(new SocketConnection(server)));
    return new Response(null, { status: 101, webSocket: client });
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    this.restoreAfterHibernation();
    const id = this.connIds.get(ws);
    if (id === undefined || !this.room) return;
    this.room.message(id, message);
  }

  override webSocketClose(ws: WebSocket, code: number, reason: string): void {
    this.restoreAfterHibernation();
    const id = this.connIds.get(ws);
    this.untrack(ws);
    if (id !== undefined) this.room?.closed(id, code, reason);
    try {
      ws.close(sendableCloseCode(code), "closing");
    } catch {
      // already closed
    }
  }

  override webSocketError(ws: WebSocket): void {
    const id = this.connIds.get(ws);
    this.untrack(ws);
    if (id !== undefined) this.room?.closed(id, 1006, "socket error");
  }

  private roomFor(meta: RoomRequestMeta): Room | null {
    if (this.room) return this.room;
    const def = this.games[meta.kind];
    if (!def) return null;
    const options = { ...def.defaults, ...meta.options };
    const hooks: RoomHooks = {
      onSeated: (connId, ticket) => {
        const ws = this.sockets.get(connId);
        ws?.serializeAttachment({ meta, ticket } satisfies SocketAttachment);
      },
      onSessionStart: (info) => this.onSessionStart(info),
      onSessionEnd: (record) => this.onSessionEnd(record),
    };
    const room = new Room({ kind: meta.kind, roomId: meta.roomId, game: def.create({ ...options } as never, meta.params), options, hooks });
    this.room = room;
    return room;
  }

  /** After hibernation the object is new but its sockets are not: re-seat them. */
  private restoreAfterHibernation(): void {
    if (this.room) return;
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const first = sockets[0]!.deserializeAttachment() as SocketAttachment | null;
    if (!first) return;
    const room = this.roomFor(first.meta);
    if (!room) return;
    for (const ws of sockets) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      const conn = new SocketConnection(ws);
      this.track(ws, att?.ticket ? room.adopt(conn, att.ticket) : room.open(conn));
    }
  }

  private track(ws: WebSocket, connId: number): void {
    this.connIds.set(ws, connId);
    this.sockets.set(connId, ws);
  }

  private untrack(ws: WebSocket): void {
    const id = this.connIds.get(ws);
    this.connIds.delete(ws);
    if (id !== undefined) this.sockets.delete(id);
  }
}
