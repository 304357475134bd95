import { DurableObject } from "cloudflare:workers";
import { createRoom, type GameDefinition, type Room, type RoomHooks, type RoomSessionRecord, type SeatTicket } from "@tikron/core";
import { RoomRecorder, type RecordDatabase } from "./roomRecords";
import { readRoomMeta, type RoomRequestMeta } from "./roomRequest";
import { SocketConnection, sendableCloseCode } from "./socketConnection";
import { JSON_KEEPALIVE, parseBotCount } from "@tikron/protocol";
import { overridesKey, resolveMatchmaking, shardOfRoom, StatusReporter, type SeatAnswer, type SeatRequest } from "@tikron/core/match";
import type { ListingInit } from "@tikron/core";
import { matchmakerStub } from "./matchmakerRpc";

const STATS_PATH = /^\/rooms\/[^/]+\/[^/]+\/stats\/?$/;
const BOTS_PATH = /^\/rooms\/[^/]+\/[^/]+\/bots\/?$/;

/** Storage key of the room's checkpoint (`Room.checkpoint()`): seats, tokens, game state. */
const CHECKPOINT_KEY = "room:checkpoint";
/**
 * How long after a change a checkpoint is written: a seat taken or freed, or a turn-based
 * game's move, at once (batched within the event: they are rare and they are what players
 * lose); a ticking room's periodic nudge (its seats' input seqs) within 2 s. The world of a
 * ticking game is not checkpointed.
 */
const CHECKPOINT_DELAY_MS = { soon: 0, later: 2000 };

/** What each hibernatable socket carries, so a restarted object can rebuild its room. */
interface SocketAttachment {
  meta: RoomRequestMeta;
  ticket: SeatTicket | null;
}

/**
 * One Durable Object per room. Hosts a core {@link Room}; subclasses name the games they host;
 * everything game-specific lives in the core and games.
 *
 * Socket API per room kind: ticking rooms accept sockets with the standard API (`accept()` +
 * listeners), which costs a fraction of the Hibernation API per message and loses nothing,
 * since their loop keeps the object awake while anyone is connected. Turn-based rooms use the
 * Hibernation API (`ctx.acceptWebSocket`, events as `webSocketMessage/Close/Error`) and answer
 * the JSON keepalive with a runtime auto-response, so an idle turn-based room really sleeps; it
 * is rebuilt from the sockets' attachments: seats come back with the same ids and tokens; game
 * state starts fresh unless the game checkpoints it.
 *
 * Records: with a D1 binding named `DB` in the Worker env, every room session is written to
 * `room_records` through {@link RoomRecorder} (outbox in this object's storage, flushed from
 * its alarm). Without the binding (staging, DEV_MODE) records are skipped.
 */
export abstract class RoomObject<Env = unknown> extends DurableObject<Env> {
  /** The kinds this object can host, by kind name. */
  protected abstract readonly games: Readonly<Record<string, GameDefinition>>;

  private room: Room | null = null;
  /** When this instance was constructed: a later value after idle time means it hibernated. */
  private readonly instanceStartedAt = Date.now();
  private readonly connIds = new Map<WebSocket, number>();
  private readonly sockets = new Map<number, WebSocket>();
  private recorderInstance: RoomRecorder | null | undefined;
  /** Reports this room's status to its kind's matchmaker (null without a `MATCHMAKER` binding). */
  private reporter: StatusReporter | null = null;
  /** The checkpoint found in storage at construction, until a room is made from it. */
  private savedCheckpoint: unknown = undefined;
  private checkpointTimer: ReturnType<typeof setTimeout> | null = null;
  private checkpointSoon = false;
  /** What the runtime reported as socket backlogs (DEV_MODE stats): slow-consumer visibility. */
  private readonly backlog = { reads: 0, reported: 0, peakBytes: 0 };
  private readonly observeBuffered = (bytes: number, reported: boolean): void => {
    this.backlog.reads++;
    if (reported) this.backlog.reported++;
    if (bytes > this.backlog.peakBytes) this.backlog.peakBytes = bytes;
  };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Answered by the runtime for hibernatable sockets, without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(JSON_KEEPALIVE, JSON_KEEPALIVE));
    // Before any event: a restarted (or evicted, or hibernated) object finds its room's seats
    // and game state here, so every client can come back to its own seat.
    void ctx.blockConcurrencyWhile(async () => {
      this.savedCheckpoint = await ctx.storage.get(CHECKPOINT_KEY);
    });
  }

  /** The D1 database records go to: the env's `DB` binding when present. */
  protected recordsDatabase(): RecordDatabase | undefined {
    const db = (this.env as { DB?: Partial<RecordDatabase> } | undefined)?.DB;
    return db && typeof db.prepare === "function" && typeof db.batch === "function" ? (db as RecordDatabase) : undefined;
  }

  /** The session recorder, or null when there is nowhere to write records. */
  protected get recorder(): RoomRecorder | null {
    if (this.recorderInstance === undefined) {
      const db = this.recordsDatabase();
      this.recorderInstance = db ? new RoomRecorder(this.ctx.storage, db) : null;
    }
    return this.recorderInstance;
  }

  /** Called when a room session ends (last seat freed). Queues its record; never blocks the room. */
  protected onSessionEnd(record: RoomSessionRecord): void {
    const recorder = this.recorder;
    if (recorder) this.ctx.waitUntil(recorder.sessionEnded(record));
  }
  /** Called when a room session starts. Queues its record; never blocks the room. */
  protected onSessionStart(info: { kind: string; roomId: string; startedAt: number }): void {
    const recorder = this.recorder;
    if (recorder) this.ctx.waitUntil(recorder.sessionStarted(info));
  }

  /** Flushes queued room records to D1 (the recorder arms this alarm). */
  override async alarm(): Promise<void> {
    await this.recorder?.flush();
  }

  /** A join (WebSocket upgrade) or, in DEV_MODE, a stats request routed here by the gateway. */
  override async fetch(request: Request): Promise<Response> {
    const meta = readRoomMeta(request.headers);
    if (!meta) return new Response("missing room metadata", { status: 400 });
    this.restoreAfterHibernation();
    const url = new URL(request.url);
    // The exact stats route, so a room that happens to be named "stats" can still be joined.
    if (STATS_PATH.test(url.pathname)) {
      const api = this.room ? (this.room.ticking ? "standard" : "hibernation") : null;
      const adapter = { sockets: this.connIds.size, socketApi: api, instanceStartedAt: this.instanceStartedAt, backlog: { ...this.backlog } };
      return Response.json(this.room ? { ...this.room.snapshot(), adapter } : { kind: meta.kind, roomId: meta.roomId, ccu: 0, idle: true, adapter });
    }
    // The gateway lets this through only in DEV_MODE or for kinds whose definition allows it.
    if (BOTS_PATH.test(url.pathname) && request.method === "POST") return this.botsRequest(meta, url);
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    const room = this.roomFor(meta);
    if (!room) return new Response(`unknown room kind ${meta.kind}`, { status: 404 });
    const refusal = room.admitSocket(meta.playerId, meta.address);
    if (refusal) {
      const retry = String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000)));
      return new Response(`${refusal.reason}; retry later`, { status: refusal.status, headers: { "retry-after": retry } });
    }
    const pair = new WebSocketPair();
    const client = pair[0];
    const server = pair[1];
    if (room.ticking) this.acceptStandard(room, server, meta);
    else this.acceptHibernatable(room, server, meta);
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * Ticking rooms: the standard API. Its loop keeps the object awake (and billed for duration)
   * while anyone is connected, so hibernation would buy nothing, and every incoming message
   * through the Hibernation API costs several times more CPU (see AGENTS.md, "Socket APIs").
   */
  private acceptStandard(room: Room, server: WebSocket, meta: RoomRequestMeta): void {
    // Since compatibility date 2026-03-17 standard sockets default to Blob; the room reads bytes.
    server.binaryType = "arraybuffer";
    server.accept();
    const id = room.open(new SocketConnection(server, this.observeBuffered), meta.playerId, meta.address, meta.reservation);
    this.track(server, id);
    server.addEventListener("message", (e) => room.message(id, e.data as ArrayBuffer | string));
    server.addEventListener("close", (e) => this.socketClosed(server, e.code, e.reason));
    server.addEventListener("error", () => this.socketFailed(server));
  }

  /**
   * Turn-based rooms: the Hibernation API, so an idle room (nobody moving, the keepalive answered
   * by the runtime's auto-response) sleeps and costs nothing; attachments rebuild its seats.
   */
  private acceptHibernatable(room: Room, server: WebSocket, meta: RoomRequestMeta): void {
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ meta, ticket: null } satisfies SocketAttachment);
    this.track(server, room.open(new SocketConnection(server, this.observeBuffered), meta.playerId, meta.address, meta.reservation));
  }

  /** A message on a hibernatable socket (turn-based rooms). */
  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    this.restoreAfterHibernation();
    const id = this.connIds.get(ws);
    if (id === undefined || !this.room) return;
    this.room.message(id, message);
  }

  /** A hibernatable socket closed. */
  override webSocketClose(ws: WebSocket, code: number, reason: string): void {
    this.restoreAfterHibernation();
    this.socketClosed(ws, code, reason);
  }

  /** A hibernatable socket failed. */
  override webSocketError(ws: WebSocket): void {
    this.socketFailed(ws);
  }

  /** The peer closed (either socket API): the room holds or frees the seat; we finish the close. */
  private socketClosed(ws: WebSocket, code: number, reason: string): void {
    const id = this.connIds.get(ws);
    this.untrack(ws);
    if (id !== undefined) this.room?.closed(id, code, reason);
    try {
      ws.close(sendableCloseCode(code), "closing");
    } catch {
      // already closed
    }
  }

  private socketFailed(ws: WebSocket): void {
    const id = this.connIds.get(ws);
    this.untrack(ws);
    if (id !== undefined) this.room?.closed(id, 1006, "socket error");
  }

  /** `POST /rooms/:kind/:id/bots?count=N`: seats N bots (making the room if need be). */
  private botsRequest(meta: RoomRequestMeta, url: URL): Response {
    const count = parseBotCount(url.searchParams);
    if (typeof count === "string") return new Response(count, { status: 400 });
    const room = this.roomFor(meta);
    if (!room) return new Response(`unknown room kind ${meta.kind}`, { status: 404 });
    if (!room.botsAvailable.available) return new Response(`${meta.kind} has no bots`, { status: 404 });
    const bots = room.setBots(count);
    return Response.json({ bots, ccu: room.connectedCount, cap: room.options.cap });
  }

  /**
   * A matchmaker asks this room to hold seats (RPC from `MatchmakerObject`): the room is made
   * first when the request creates it, or comes back from its checkpoint after a restart; a room
   * that does not exist and is not being created is `not_found`.
   */
  reserveSeats(kind: string, req: SeatRequest): SeatAnswer {
    this.restoreAfterHibernation();
    let room = this.room;
    if (!room && (req.create || this.savedCheckpoint !== undefined)) {
      const creation = req.create?.creation;
      const meta: RoomRequestMeta = { kind, roomId: req.roomId, options: creation?.overrides.options ?? {}, params: creation?.overrides.params ?? {} };
      room = this.roomFor(meta, req.create ? { metadata: req.create.metadata, private: req.create.private, overrides: creation?.key ?? "" } : undefined);
    }
    if (!room) return { ok: false, code: "not_found", reason: `no room ${req.roomId}` };
    return room.reserveSeats(req);
  }

  /**
   * The status reporter of a new room: one report in flight at a time to the matchmaker shard its
   * id belongs to, from `waitUntil`, never awaited on a tick (core/match `StatusReporter`).
   */
  private reporterFor(meta: RoomRequestMeta, room: Room): StatusReporter | null {
    const ns = (this.env as { MATCHMAKER?: DurableObjectNamespace } | undefined)?.MATCHMAKER;
    if (!ns || typeof ns.idFromName !== "function") return null;
    const shard = shardOfRoom(meta.roomId, resolveMatchmaking(this.games[meta.kind]?.matchmaking).shards);
    return new StatusReporter({
      current: () => room.status(),
      send: (status) => {
        const sent = matchmakerStub(ns, meta.kind, shard).report(meta.kind, shard, status);
        this.ctx.waitUntil(sent.catch(() => {}));
        return sent;
      },
      clock: { now: () => Date.now(), setTimer: (fn, ms) => setTimeout(fn, ms), clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) },
      onError: (e) => console.warn(`[room ${meta.kind}:${meta.roomId}] matchmaker report failed:`, e instanceof Error ? e.message : e),
    });
  }

  private roomFor(meta: RoomRequestMeta, listing?: ListingInit): Room | null {
    if (this.room) return this.room;
    const def = this.games[meta.kind];
    if (!def) return null;
    const hooks: RoomHooks = {
      onSeated: (connId, ticket) => {
        // Only hibernatable sockets outlive the object's memory; standard ones die with it.
        if (room.ticking) return;
        const ws = this.sockets.get(connId);
        ws?.serializeAttachment({ meta, ticket } satisfies SocketAttachment);
      },
      onSessionStart: (info) => this.onSessionStart(info),
      onCheckpointDue: (soon) => this.checkpointDue(soon),
      onSessionEnd: (record) => this.onSessionEnd(record),
      // Deferred: the status is read after the change (and a bot's bookkeeping) settles.
      onStatusChange: () => queueMicrotask(() => this.reporter?.changed()),
    };
    const room = createRoom(def, {
      kind: meta.kind,
      roomId: meta.roomId,
      overrides: meta.options,
      params: meta.params,
      hooks,
      listing: listing ?? { overrides: overridesKey(meta.options, meta.params as Record<string, unknown>) },
    });
    this.room = room;
    this.reporter = this.reporterFor(meta, room);
    if (this.savedCheckpoint !== undefined) {
      room.restoreCheckpoint(this.savedCheckpoint);
      this.savedCheckpoint = undefined;
    }
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
      const conn = new SocketConnection(ws, this.observeBuffered);
      this.track(ws, att?.ticket ? room.adopt(conn, att.ticket) : room.open(conn, att?.meta.playerId));
    }
  }

  /** Batches checkpoint writes: one pending write at a time, off the tick path. */
  private checkpointDue(soon: boolean): void {
    if (!this.room) return;
    if (this.checkpointTimer !== null) {
      if (!soon || this.checkpointSoon) return;
      clearTimeout(this.checkpointTimer);
    }
    this.checkpointSoon = soon;
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = null;
      this.saveCheckpoint();
    }, soon ? CHECKPOINT_DELAY_MS.soon : CHECKPOINT_DELAY_MS.later);
  }

  /** Writes the room's checkpoint (or removes it once the room has no seats). */
  private saveCheckpoint(): void {
    const room = this.room;
    if (!room) return;
    const write = room.seatCount === 0 ? this.ctx.storage.delete(CHECKPOINT_KEY) : this.ctx.storage.put(CHECKPOINT_KEY, room.checkpoint());
    this.ctx.waitUntil(
      Promise.resolve(write).catch((e: unknown) => console.error(`[room ${room.kind}:${room.roomId}] checkpoint write failed`, e)),
    );
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
