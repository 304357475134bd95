import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { BusyMeter, HostRefusals, METRICS_INTERVAL_MS, MIN_METRICS_INTERVAL_MS, SocketTable, admissionAddress, botsReply, createRoom, makingFor, roomMadeWith, statsReply, type GameDefinition, type HostReply, type ListingInit, type Room, type RoomCheckpoint, type RoomMadeWith } from "@tikron/core";
import { overridesKey } from "@tikron/core/match";
import { CloseCode, isAdminPath, readSpectate, type RoomRoute, type SpectateRequest } from "@tikron/protocol";
import { UNCONFIGURED_TEXT, admitRoute, joinRefusal, roomObjectName, routeJoin, type JoinAdmitted, type JoinRefusal, type JoinSeat } from "@tikron/core/join";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { NodeMatchmaking, type HttpAnswer } from "./nodeMatchmaking";
import { NodeIdentity, headersOf } from "./nodeIdentity";
import { closeAtOnce, refuseUpgrade } from "./upgradeRefusal";
import { NodeAdmin } from "./nodeAdmin";
import { adminAuthFromEnv } from "@tikron/core/admin";
import type { JwtConfigInput, JwtVerifier } from "@tikron/core/auth";
import { WsConnection } from "./wsConnection";
import { nodeClock } from "./nodeClock";
import { NodeReplays, type NodeReplayOptions } from "./nodeReplays";
import { hasUnreadBody } from "./nodeBody";

/** Options of {@link serveRooms}. */
export interface ServeRoomsOptions {
  /** The kinds this server hosts, by kind name (e.g. `gameDefinitions` from `@tikron/games`). */
  games: Readonly<Record<string, GameDefinition>>;
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Bind address; loopback by default. */
  host?: string;
  /**
   * Accept DEV_MODE join overrides (`?tickMs=…&cap=…`) and `GET /rooms/:kind/:id/stats`, like
   * the staging gateway (default true). Off, both are refused with 403, like production.
   */
  devMode?: boolean;
  /**
   * Secret of room tickets, match tickets and seat reservations (as `TICKET_SECRET` on
   * Cloudflare). Without it, DEV_MODE signs reservations with the public development secret and
   * takes no tickets.
   */
  ticketSecret?: string;
  /**
   * The game's sign-in provider (as the `AUTH_*` vars on Cloudflare): joins and match requests
   * may carry its JWT (`?token=` or `Authorization: Bearer`) instead of a ticket. A verifier
   * (`createJwtVerifier`) or its configuration.
   */
  auth?: JwtVerifier | JwtConfigInput;
  /**
   * The admin API's token (as `ADMIN_TOKEN` on Cloudflare; at least 24 characters): with it the
   * host serves `/admin/api/…` (rooms, a room's detail and metrics, kick, ban, lock, close,
   * notice, the audit log) to `Authorization: Bearer <adminToken>`. Without it every admin path
   * answers 503.
   */
  adminToken?: string;
  /** Ms between two metric points of a room with players (default 60 000; at least 1 000). */
  metricsIntervalMs?: number;
  /**
   * Largest WebSocket message ws accepts before it closes the socket itself (1009). Well above
   * the protocol's 4096-byte frame limit, so the room sees an oversized frame, refuses it and
   * counts it (4007) as under workerd; bounded so one peer cannot make the process buffer
   * megabytes. A frame over it is counted by the room too (`errors.frame_too_large`, the seat
   * freed), as workerd's own limit (32 MiB) is on Cloudflare. Default 1 MiB.
   */
  maxPayloadBytes?: number;
  /**
   * The host environment every room's game gets as `ctx.env` (what a Worker's `env` is on
   * Cloudflare: stand-ins for its bindings, say). Default undefined.
   */
  env?: unknown;
  /**
   * Where recorded matches are kept: rooms of a kind whose definition records (`record`) write
   * their match log into `dir` (docs/replay.md), and the admin API lists and serves them. A
   * room's match ends when the server closes (rooms here live until then). Absent: nothing is
   * recorded.
   */
  replays?: NodeReplayOptions;
  /**
   * Where rooms' checkpoints are kept across a restart of this host (a `Map` will do: hand the
   * next `serveRooms` the same one, or one backed by a file). With it each room saves its
   * checkpoint when a seat is taken or freed and as it plays (as a Durable Object does), a room
   * made again under its id comes back from it (seats held for the reconnection window, each
   * with its player record; the game continued when it checkpoints), and {@link RoomServer.close}
   * is a restart: every room's checkpoint is saved and its sockets close `going_away` (1001), so
   * clients reconnect to the next server, and no game hears `onDispose`. Without it rooms live
   * in this process only.
   */
  checkpoints?: CheckpointKeeper;
}

/** Where a Node host keeps its rooms' checkpoints, by `<kind>:<roomId>` (core `roomObjectName`; a `Map` fits). */
export interface CheckpointKeeper {
  /** The checkpoint kept for a room, if any. */
  get(key: string): unknown;
  /** Keeps a room's latest checkpoint. */
  set(key: string, checkpoint: RoomCheckpoint): unknown;
  /** Forgets a room's checkpoint (its last seat was freed). */
  delete(key: string): unknown;
}

/** A running Node room server. */
export interface RoomServer {
  /** The port it listens on. */
  readonly port: number;
  /** `ws://host:port`, the base URL clients append `/rooms/<kind>/<roomId>` to. */
  readonly url: string;
  /** `http://host:port`, for `/health` and DEV_MODE `/rooms/<kind>/<roomId>/stats`. */
  readonly httpUrl: string;
  /** The live room of a kind and id, if one was created. */
  room(kind: string, roomId: string): Room | undefined;
  /** Every room created so far (rooms live until {@link close}). */
  rooms(): Room[];
  /** Open sockets, in every room, seated or not. */
  readonly socketCount: number;
  /**
   * Stops accepting, shuts every room down (sockets close with 4008 `room_closed`; each game
   * hears `onDispose`; with `checkpoints`, a restart instead: see there), waits up to `graceMs`
   * (default 2000) for sockets to finish closing and the games' deferred work (`ctx.defer`) to
   * settle, then drops the rest. Idempotent.
   */
  close(graceMs?: number): Promise<void>;
}

/** A room this server serves: the core room, the `ws` sockets open on it (the core's socket table), its meter. */
interface ServedRoom {
  room: Room;
  sockets: SocketTable<WebSocket, Room>;
  /** The room's own time (its `tk:stats` `busy`). */
  busy: BusyMeter;
  /** The overrides it was made with (core roomMadeWith.ts), kept with its checkpoint. */
  madeWith: RoomMadeWith | undefined;
}

/** Headers of an answer: a request whose body was left unread is answered with the connection closed after it (nodeBody.ts). */
function closing(res: ServerResponse, headers: Record<string, string>): Record<string, string> {
  return hasUnreadBody(res.req) ? { ...headers, connection: "close" } : headers;
}

function send(res: ServerResponse, r: HostReply): void {
  res.writeHead(r.status, closing(res, r.headers)).end(r.body);
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (body === undefined) return void res.writeHead(status, closing(res, headers)).end();
  if (body instanceof Uint8Array) return void res.writeHead(status, closing(res, headers)).end(body);
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, closing(res, { "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json", ...headers })).end(text);
}

/**
 * Hosts the same core `Room`s as the Cloudflare adapter in a plain Node process over `ws`, so a
 * room runs outside workerd with no code changes and the engine can be compared with Node room
 * servers on equal footing. Routing is the gateway's (`/health`, `/rooms/:kind/:roomId`, its
 * refusals: a close code right after the upgrade, the HTTP status without one); admission is the
 * room's own (join rate, cap, pending sockets via `Room.admitSocket`, per-socket budgets). One process, one thread: every room shares it,
 * like every Durable Object under local `wrangler dev`. No join tickets or origin checks: it is
 * meant for loopback benchmarks, tests and local development (it binds 127.0.0.1 by default).
 */
export async function serveRooms(options: ServeRoomsOptions): Promise<RoomServer> {
  const host = options.host ?? "127.0.0.1";
  const devMode = options.devMode ?? true;
  const games = options.games;
  const env = options.env;
  const hosted = new Map<string, ServedRoom>();
  const hasKind = (kind: string): boolean => Object.hasOwn(games, kind);
  let closing: Promise<void> | null = null;
  const replays = options.replays ? new NodeReplays(options.replays) : null;

  const checkpoints = options.checkpoints;
  const make = (kind: string, roomId: string, requested: Record<string, unknown>, requestedParams: Record<string, unknown>, requestedListing: ListingInit): ServedRoom => {
    const key = roomObjectName(kind, roomId);
    // A room this host kept before its restart comes back from its checkpoint, made as it was
    // (core roomMadeWith.ts), whatever the overrides of the join that wakes it.
    const saved = checkpoints?.get(key);
    const { options, params } = makingFor(saved, { options: requested, params: requestedParams });
    const listing = saved === undefined ? requestedListing : { ...requestedListing, overrides: overridesKey(options, params) };
    const madeWith = roomMadeWith({ options, params });
    // Reports are deferred and folded: one per room per turn of the event loop.
    let reportQueued = false;
    // So are checkpoints: one write per room per turn, off the room's own event.
    let checkpointQueued = false;
    const hooks = {
      onStatusChange: () => {
        if (reportQueued) return;
        reportQueued = true;
        queueMicrotask(() => {
          reportQueued = false;
          matchmaking.reported(kind, room);
        });
      },
      onCheckpointDue: () => {
        if (!checkpoints || checkpointQueued) return;
        checkpointQueued = true;
        setImmediate(() => {
          checkpointQueued = false;
          if (!closing) keep(key, room, madeWith);
        });
      },
    };
    // Every room of the process shares one thread, as every object of local workerd does: the
    // room's own time (its socket events and timers) is what tells one room's cost from another's.
    const busy = new BusyMeter();
    const recording = replays?.sink(kind);
    const room = createRoom(games[kind]!, { kind, roomId, overrides: options, params, hooks, listing, env, clock: nodeClock, busy, recording });
    if (saved !== undefined && !room.restoreCheckpoint(saved)) checkpoints!.delete(key);
    // A socket's close reaches the table once `ws` has closed it: nothing is left to finish.
    const h = { room, sockets: new SocketTable<WebSocket, Room>(room, () => {}), busy, madeWith };
    hosted.set(key, h);
    return h;
  };
  /** Saves a room's checkpoint with what it was made with, or forgets it once the room has no seat. */
  const keep = (key: string, room: Room, madeWith: RoomMadeWith | undefined): void => {
    if (room.seatCount > 0) checkpoints!.set(key, madeWith ? { ...room.checkpoint(), madeWith } : room.checkpoint());
    else checkpoints!.delete(key);
  };
  /** The room a gate's verdict names: this host's room of that object name, made for the join that comes first. */
  const hostedAs = (v: JoinAdmitted): ServedRoom => hosted.get(v.objectName) ?? roomFor(v.route);
  const roomFor = (route: RoomRoute): ServedRoom => {
    const { options, params } = route.overrides as { options: Record<string, unknown>; params: Record<string, unknown> };
    // Overrides take effect only for the join that creates the room, as on Cloudflare.
    return hosted.get(roomObjectName(route.kind, route.roomId)) ?? make(route.kind, route.roomId, options, params, { overrides: overridesKey(options, params) });
  };
  /** The joins this host refused before any room, by cause (the admin API's `refusals`). */
  const refusals = new HostRefusals();
  // Throws for a token too short: a host refuses to start rather than serve a guessable admin API.
  const admin = new NodeAdmin({
    refusals: () => refusals.snapshot(),
    auth: adminAuthFromEnv({ ADMIN_TOKEN: options.adminToken }),
    rooms: () => [...hosted.values()].map((h) => h.room),
    room: (kind, roomId) => hosted.get(roomObjectName(kind, roomId))?.room,
    hasKind,
    replays: replays ?? undefined,
  });
  const sampler = setInterval(() => admin.sample(), Math.max(MIN_METRICS_INTERVAL_MS, options.metricsIntervalMs ?? METRICS_INTERVAL_MS));
  sampler.unref();
  const identity = new NodeIdentity({ devMode, ticketSecret: options.ticketSecret, auth: options.auth });
  const matchmaking = new NodeMatchmaking({
    games,
    devMode,
    identity,
    ...(options.ticketSecret !== undefined ? { ticketSecret: options.ticketSecret } : {}),
    room: (kind, roomId, create) => {
      const h = hosted.get(roomObjectName(kind, roomId));
      if (h || !create) return h?.room;
      return make(kind, roomId, create.creation.overrides.options, create.creation.overrides.params, create.listing).room;
    },
  });

  const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://host");
    if (url.pathname === "/health") return reply(res, 200, { ok: true, devMode, kinds: Object.keys(games) });
    if (isAdminPath(url.pathname)) {
      admin.serve(req, url).then(
        (a) => (a ? reply(res, a.status, a.body, a.headers) : reply(res, 404, "not found")),
        (e: unknown) => reply(res, 500, e instanceof Error ? e.message : "error"),
      );
      return;
    }
    if (url.pathname.startsWith("/match/")) {
      matchmaking.serve(req, url).then(
        (a: HttpAnswer | null) => (a ? reply(res, a.status, a.body, a.headers) : reply(res, 404, "not found")),
        (e: unknown) => reply(res, 500, e instanceof Error ? e.message : "error"),
      );
      return;
    }
    const route = routeJoin(url, { devMode, games });
    if (!route) return reply(res, 404, "not found");
    if ("refusal" in route) return reply(res, route.refusal.status, route.refusal.message);
    if (route.bots) {
      if (req.method !== "POST") return reply(res, 405, "POST /rooms/:kind/:roomId/bots?count=N");
      if (!devMode) return reply(res, 403, "bots are available in DEV_MODE only on the Node host");
      return send(res, botsReply(route.kind, url.searchParams, () => roomFor(route).room));
    }
    // The abort drill makes one Durable Object die; rooms here share the process, none dies alone.
    if (route.abort) return reply(res, 404, "aborting a room's object is a Durable Objects drill; the Node host has none");
    if (!route.stats) return reply(res, 426, "expected a WebSocket upgrade");
    const h = hosted.get(roomObjectName(route.kind, route.roomId));
    return send(res, statsReply(route.kind, route.roomId, h?.room, { sockets: h?.sockets.count ?? 0, metrics: h ? admin.points(h.room) : [] }));
  });

  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: options.maxPayloadBytes ?? 1 << 20 });

  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A refused join is accepted and closed at once with the refusal's code and reason (and its
    // wait): every client can read a close, while a browser cannot read a failed upgrade's status.
    // The socket is never handed to a room. The host's own refusals are counted by cause, and
    // past an address's budget answered plain (upgradeRefusal.ts).
    const u = { req, socket, head };
    const refuse = (r: JoinRefusal): void => refuseUpgrade(wss, refusals, u, r.cause ?? "bad_request", r.status, r.close, r.message, r.retryAfterMs);
    if (closing) return closeAtOnce(wss, u, CloseCode.going_away, "server is shutting down");
    // The core's join gate (core/src/join), as the gateway calls it: the route, then a seat
    // reservation or a credential (a room ticket or a sign-in JWT, by nodeIdentity.ts's rule);
    // the room's object is this host's room under the same name.
    const url = new URL(req.url ?? "/", "http://host");
    const route = routeJoin(url, { devMode, games, joinsOnly: true });
    if (!route) return refuse(joinRefusal("no_route", "not found"));
    if ("refusal" in route) return refuse(route.refusal);
    // A spectator's join (`spectate=1`, core/src/spectate): the same credential and admission, then no seat.
    const spectate = readSpectate(url.searchParams);
    if (typeof spectate === "string") return refuse(joinRefusal("bad_path", spectate));
    const upgrade = (v: JoinAdmitted): void => {
      if (closing) return closeAtOnce(wss, u, CloseCode.going_away, "server is shutting down");
      const h = hostedAs(v);
      const address = admissionAddress(req.socket.remoteAddress);
      const refusal = h.room.admitSocket(v.seat.identity, address);
      // The room's own refusal, counted by the room: answered as it asked.
      if (refusal) return closeAtOnce(wss, u, refusal.closeCode, refusal.reason, refusal.retryAfterMs);
      wss.handleUpgrade(req, socket, head, (ws) => attachSocket(h, ws, address, v.seat, spectate));
    };
    void admitRoute({ url, headers: headersOf(req), upgrade: true }, route, {
      devMode,
      games,
      reservationSecret: matchmaking.secret,
      caller: (kind, roomId) => identity.caller(req, kind, roomId, false),
      // Every room of this host is one room in this process: nothing is relayed.
      relays: null,
    }).then(
      (v) => (v.ok ? upgrade(v) : refuse(v.refusal)),
      () => refuse(joinRefusal("unconfigured", UNCONFIGURED_TEXT)),
    );
  });

  const attachSocket = (h: ServedRoom, ws: WebSocket, address: string | undefined, seat: JoinSeat, spectate: SpectateRequest | null): void => {
    const conn = new WsConnection(ws);
    const watch = (req: SpectateRequest): number => {
      if (h.room.spectate) return h.room.spectate(conn, req);
      conn.close(CloseCode.bad_request, "this room takes no spectators");
      return -1;
    };
    h.sockets.track(ws, spectate ? watch(spectate) : h.room.open(conn, seat.identity, address, seat.reservation, seat.claims));
    ws.on("message", (data: RawData, isBinary: boolean) => {
      // ws hands over one Buffer per message (fragments joined) with the default binaryType.
      const buf = data as Buffer;
      h.busy.enter("socket");
      try {
        h.sockets.message(ws, isBinary ? buf : buf.toString("utf8"));
      } finally {
        h.busy.exit();
      }
    });
    // A socket error is followed by a close event; the room hears about it there, once. A frame
    // over `maxPayloadBytes` is refused by ws itself (it closes 1009, then reports 1006): the
    // room hears 1009, an oversized frame.
    let oversized = false;
    ws.on("error", (e: Error & { code?: string }) => {
      if (e.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") oversized = true;
    });
    ws.on("close", (code: number, reason: Buffer) => {
      h.busy.run(() => h.sockets.closed(ws, oversized ? 1009 : code, reason.toString()), "socket");
    });
  };

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  const shutDown = async (graceMs: number): Promise<void> => {
    const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
    clearInterval(sampler);
    matchmaking.dispose();
    for (const [key, h] of hosted) {
      if (checkpoints) {
        // A restart: what the next server needs is kept, and clients come back to it.
        keep(key, h.room, h.madeWith);
        h.room.handOver(CloseCode.going_away, "server restarting");
      } else {
        h.room.dispose(CloseCode.room_closed, "server shutting down");
      }
    }
    const deadline = Date.now() + graceMs;
    let deferredDone = false;
    // The games' deferred work, and the recorded matches' last pieces (each room's ended with it).
    void Promise.all([...hosted.values()].map((h) => h.room.deferredIdle()).concat(replays ? [replays.idle()] : [])).then(() => (deferredDone = true));
    while (([...hosted.values()].some((h) => h.sockets.count > 0) || !deferredDone) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    http.closeAllConnections();
    await stopped;
  };

  return {
    port,
    url: `ws://${urlHost}:${port}`,
    httpUrl: `http://${urlHost}:${port}`,
    room: (kind, roomId) => hosted.get(roomObjectName(kind, roomId))?.room,
    rooms: () => [...hosted.values()].map((h) => h.room),
    get socketCount() {
      let n = 0;
      for (const h of hosted.values()) n += h.sockets.count;
      return n;
    },
    close(graceMs = 2000): Promise<void> {
      closing ??= shutDown(graceMs);
      return closing;
    },
  };
}
