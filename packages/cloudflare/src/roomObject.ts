/**
 * `RoomObject`, the Durable Object of one room: the entries the runtime calls (the gateway's
 * requests, hibernatable socket events, the alarm, the matchmaker's, admin and relay RPCs), the
 * room it makes and the parts wired to it, its restore after hibernation and its let-go when
 * empty. What each part does lives in its own module (see the class).
 */
import { DurableObject } from "cloudflare:workers";
import { botsReply, BusyMeter, RoomKeeping, EmptyRoomLinger, makingFor, recordDatabaseIn, RoomPromotion, RoomRecorder, roomMadeWith, statsReply, systemClock, type GameDefinition, type HostReply, type HostedRoom, type ListingInit, type RoomHooks } from "@tikron/core";
import type { RoomStatus, SeatAnswer, SeatRelease, SeatRequest, StatusReporter } from "@tikron/core/match";
import { JSON_KEEPALIVE, readSpectate } from "@tikron/protocol";
import type { RelaySimulation } from "@tikron/core/relay";
import { RelayObjectSide } from "./relayHost";
import type { RelayObjectStats } from "./relayLink";
import { SimulationLinks } from "./simulationLinks";
import { roomReplays, type ReplaysEnv } from "./roomReplays";
import { makeRoom } from "./roomMaking";
import { readRoomMeta, relayedAnswer, type RoomRequestMeta } from "./roomRequest";
import { HibernatingSockets, StandardSockets, type RoomSocketApi, type SocketAttachment } from "./socketApis";
import { metricsIntervalMs, RoomOperations, type AdminRoomAnswer, type RoomAdminRpcRequest } from "@tikron/core/admin";
import { metricsDataPoint, metricsDataset, type OperationsEnv } from "./metricsDataPoint";
import { statusReporterFor } from "./roomStatusReporter";
import { adminError, type AdminBan, type AdminStatsSummary } from "@tikron/protocol";

function toResponse(r: HostReply): Response {
  return new Response(r.body, { status: r.status, headers: r.headers });
}

/**
 * One Durable Object per room. Hosts a core room ({@link HostedRoom}); subclasses name the games they host;
 * everything game-specific lives in the core and games. What a request is for (a join, the
 * DEV_MODE stats probe, bots, a relay's link, the DEV_MODE abort drill) the gateway's routing
 * decided; it comes in the room metadata header.
 *
 * Its parts have homes of their own: the socket API, chosen once per room (socketApis.ts:
 * standard sockets for ticking rooms; the Hibernation API for turn-based ones, so an idle one
 * really sleeps and is rebuilt from its checkpoint and its sockets' attachments), the making of
 * the room (roomMaking.ts), its checkpoint and its game's store across restarts (core storage/roomKeeping.ts),
 * its relay plan and promotion (core placement/promotion.ts), its reports to its matchmaker
 * (roomStatusReporter.ts), the operator's side (core admin/roomOperations.ts), and its session records
 * (core storage/roomRecords.ts: to `room_records` when the env has a D1 binding named `DB`; skipped without).
 *
 * Games get the Worker's `env` as `ctx.env` (a definition typed `GameDefinition<E>` is taken
 * only when `Env` satisfies `E`), their deferred work (`ctx.defer`) goes to `waitUntil`, and a
 * room that stayed empty for 10 s (core room/emptyRoomLinger.ts) is disposed (the game's `onDispose`)
 * and let go.
 */
export abstract class RoomObject<Env = unknown> extends DurableObject<Env> {
  /** The kinds this object can host, by kind name. */
  protected abstract readonly games: Readonly<Record<string, GameDefinition<Env>>>;

  private room: HostedRoom | null = null;
  /**
   * This object's own time (core busyMeter.ts): every entry into it — requests and RPCs, socket
   * and link events on both socket APIs, alarms, the room's and its own timers — reported in
   * `tk:stats` as `busy`. Under `wrangler dev` every object shares one thread, so it is what
   * tells a relayed room's simulation's cost apart from its relays'.
   */
  private readonly busy = new BusyMeter();
  /** A relayed room (`relays` ≥ 1): its simulation (whose room is {@link room}), else null. */
  private simulation: RelaySimulation | null = null;
  /** The current room's relays when it is relayed (its {@link simulation}'s), else 0. */
  private relayedOver = 0;
  /** The overrides the current room was made with (its relays make their mirrors with them). */
  private roomMadeWith: Pick<RoomRequestMeta, "options" | "params"> = { options: {}, params: {} };
  /** As a relayed room's simulation: the links of its relay objects. */
  private readonly relayLinks = new SimulationLinks(this.busy);
  /**
   * What this object is, fixed once by the first request that makes it something: a room's own
   * object (a single room, or a relayed room's simulation: {@link room}), or a relay of a
   * relayed room ({@link asRelay}, made by the first join that names a relay index). Its name
   * says the same (relayLink.ts); a join for the other role is refused (409).
   */
  private role: "room" | "relay" | null = null;
  /** As a relay object of a relayed room: made with the role. */
  private asRelay: RelayObjectSide | null = null;
  /** The room's sockets, by the API its kind uses (made with the room). */
  private sockets: RoomSocketApi | null = null;
  /** When this instance was constructed: a later value after idle time means it hibernated. */
  private readonly instanceStartedAt = Date.now();
  /** Its session records: to `room_records` in D1 (`DB`) through an outbox in its storage (core storage/roomRecords.ts); null without a database. */
  private readonly records: RoomRecorder | null = ((db) => (db ? new RoomRecorder(this.ctx.storage, db) : null))(recordDatabaseIn(this.env));
  /** Reports this room's status to its kind's matchmaker (null without a `MATCHMAKER` binding). */
  private reporter: StatusReporter | null = null;
  /** Reports sent by this object's earlier reporters (rooms let go, promoted). */
  private reportsSent = 0;
  /** The room's checkpoint and its game's store, read back and written (core storage/roomKeeping.ts). */
  private readonly keeping = new RoomKeeping(this.ctx, this.busy, () => this.room, () => this.relayedOver);
  /** The relay plan of the current room, and its promotion at the plan's threshold (core placement/promotion.ts). */
  private readonly promotion = new RoomPromotion<HostedRoom>(
    {
      current: () => this.room,
      relayed: () => this.simulation !== null,
      saveCheckpoint: () => this.keeping.saveCheckpoint(),
      remake: (old, relays) => this.remakeRelayed(old, relays),
    },
    this.busy.clock(systemClock),
  );
  /** Its rooms' recorded matches, into storage piece by piece and to R2 at their end (roomReplays.ts; null: not recorded). */
  private readonly replays = roomReplays(this.ctx, this.env as ReplaysEnv | undefined, this.busy);
  /** Lets the room go once it stayed empty a while (core room/emptyRoomLinger.ts). */
  private readonly linger = new EmptyRoomLinger<HostedRoom>(this.busy.clock(systemClock), () => this.room, () => this.sockets?.count ?? 0, (room) => this.letGo(room));
  /** The operator's side: admin requests, bans kept across restarts, metrics (core admin/roomOperations.ts). */
  private operations: RoomOperations | null = null;
  /** Bans found in storage at construction, put back into the room when it is made. */
  private savedBans: AdminBan[] = [];
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
    void ctx.blockConcurrencyWhile(() => this.keeping.load());
    // Bans an operator placed outlive the object's memory too.
    void ctx.blockConcurrencyWhile(async () => {
      this.savedBans = await RoomOperations.loadBans(ctx.storage);
    });
    // A match an earlier instance did not live to end goes to the bucket as it was cut.
    this.replays?.keepLeftovers();
  }

  /** Flushes queued room records to D1 (the recorder arms this alarm). */
  override alarm(): Promise<void> {
    // Its synchronous part only: the wait for D1 is not the object's time (and other entries run meanwhile).
    return this.busy.run(async () => {
      await this.records?.flush();
    }, "alarm");
  }

  /** A request the gateway routed here: a join (WebSocket upgrade), or DEV_MODE stats, or bots. */
  override fetch(request: Request): Promise<Response> {
    // The request's synchronous part is the object's time; what it awaits (a relay's link
    // opening, its relays' counters) runs as entries of their own. A stats probe is labelled
    // apart, so what reading the room costs is not taken for its joins.
    return this.busy.run(() => this.answer(request), readRoomMeta(request.headers)?.route === "stats" ? "stats" : "request");
  }

  private async answer(request: Request): Promise<Response> {
    const meta = readRoomMeta(request.headers);
    if (!meta) return new Response("missing room metadata", { status: 400 });
    if (meta.route === "abort") return this.abortDrill();
    this.restoreAfterHibernation();
    if (meta.route === "stats") {
      const sockets = this.sockets;
      const relayObjects = await this.relayLinks.stats();
      const adapter = {
        sockets: sockets?.count ?? 0,
        socketApi: sockets?.name ?? null,
        instanceStartedAt: this.instanceStartedAt,
        backlog: { ...this.backlog },
        metrics: this.operations?.points() ?? [],
        relays: this.simulation?.relayCount ?? 0,
        relayObjects,
        // What the room cost its storage and its matchmaker: writes by kind, reports sent (RPCs).
        storage: this.keeping.writes.counts(),
        reports: this.reportsSent + (this.reporter?.sent ?? 0),
      };
      return toResponse(statsReply(meta.kind, meta.roomId, this.room, adapter));
    }
    // The gateway lets bots through (POST only) in DEV_MODE or for kinds whose definition allows it.
    if (meta.route === "bots") return toResponse(botsReply(meta.kind, new URL(request.url).searchParams, () => this.roomFor(meta)));
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    // A relay's link names its relay index too, but is for the room's own object.
    const role = meta.relay !== undefined && meta.route !== "relay-link" ? "relay" : "room";
    if ((this.role ??= role) !== role) return new Response(`this object is a ${this.role} object, not a ${role} one`, { status: 409 });
    if (meta.route === "relay-link") return this.relayLink(meta);
    // A spectator (`spectate=1`, core/src/spectate): no seat; on a relay of a relayed room, else
    // in the room's own object (ticking rooms' standard sockets only).
    const spectate = readSpectate(new URL(request.url).searchParams);
    if (typeof spectate === "string") return new Response(spectate, { status: 400 });
    if (role === "relay") return this.relaySide().join(meta, spectate);
    const room = this.roomFor(meta);
    if (!room || !this.sockets) return new Response(`unknown room kind ${meta.kind}`, { status: 404 });
    // A relayed room's clients come through its relays: a join the gateway sent here (a room
    // promoted past its threshold; a `relays=0` override, or `ROOM_RELAYS` changed under a live
    // room) is answered with its relay count, and the gateway sends it on to one of them.
    if (this.simulation) return relayedAnswer(this.relayedOver);
    if (spectate && !(this.sockets instanceof StandardSockets)) return new Response(`${meta.kind} rooms cannot be watched`, { status: 400 });
    const answer = this.sockets.join(meta, spectate);
    if (answer.status === 101) this.operations?.activity();
    return answer;
  }

  /**
   * The DEV_MODE abort drill (gateway `abortObject`): the object resets as a failed one would on
   * the edge; what it held in memory is gone, its sockets and links break, storage stays. Refused
   * unless this object's env is in DEV_MODE too, whatever the header says.
   */
  private abortDrill(): Response {
    if ((this.env as { DEV_MODE?: string } | undefined)?.DEV_MODE !== "true") return new Response("aborting a room's object is available in DEV_MODE only", { status: 403 });
    this.ctx.abort("aborted by the DEV_MODE drill");
    return new Response("not aborted", { status: 500 });
  }

  /** A message on a hibernatable socket (turn-based rooms). */
  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    this.busy.enter("socket");
    try {
      this.restoreAfterHibernation();
      this.sockets?.message(ws, message);
      this.operations?.activity();
    } finally {
      this.busy.exit();
    }
  }

  /** A hibernatable socket closed. */
  override webSocketClose(ws: WebSocket, code: number, reason: string): void {
    this.busy.enter("socket");
    try {
      this.restoreAfterHibernation();
      this.sockets?.closed(ws, code, reason);
      this.operations?.activity();
    } finally {
      this.busy.exit();
    }
  }

  /** A hibernatable socket failed. */
  override webSocketError(ws: WebSocket, error: unknown): void {
    this.busy.run(() => this.sockets?.failed(ws, error), "socket");
  }

  /**
   * A matchmaker asks this room to hold seats (RPC from `MatchmakerObject`): the room is made
   * first when the request creates it, or comes back from its checkpoint after a restart; a room
   * that does not exist and is not being created is `not_found`.
   */
  reserveSeats(kind: string, req: SeatRequest): SeatAnswer {
    return this.busy.run(() => {
      const answer = this.reserve(kind, req);
      // The matchmaker learns the room's status from this answer: no report of it is due.
      if (answer.status) this.reporter?.told(answer.status.version);
      return answer;
    }, "rpc");
  }

  private reserve(kind: string, req: SeatRequest): SeatAnswer {
    this.restoreAfterHibernation();
    let room = this.room;
    if (!room && (req.create || this.keeping.savedCheckpoint !== undefined)) {
      const creation = req.create?.creation;
      const meta: RoomRequestMeta = { kind, roomId: req.roomId, options: creation?.overrides.options ?? {}, params: creation?.overrides.params ?? {} };
      room = this.roomFor(meta, req.create ? { metadata: req.create.metadata, private: req.create.private, overrides: creation?.key ?? "" } : undefined);
    }
    if (!room) return { ok: false, code: "not_found", reason: `no room ${req.roomId}` };
    return room.reserveSeats(req);
  }

  /**
   * A matchmaker gives seats back unused (RPC from `MatchmakerObject`: a party member left
   * before joining). A room not running here holds no reservation: null.
   */
  releaseSeats(kind: string, req: SeatRelease): RoomStatus | null {
    return this.busy.run(() => {
      this.restoreAfterHibernation();
      return this.room && this.room.kind === kind ? this.room.releaseSeats(req.seats) : null;
    });
  }

  /**
   * A relay object opens its link to this room's object, the simulation (simulationLinks.ts); the
   * relayed room is made from the relay's overrides when it does not exist (or comes back from
   * its checkpoint).
   */
  private relayLink(meta: RoomRequestMeta): Response {
    const ns = this.roomsNamespace();
    if (!ns) return new Response("no ROOMS binding", { status: 500 });
    if (!this.roomFor(meta)) return new Response(`unknown room kind ${meta.kind}`, { status: 404 });
    if (!this.simulation) return new Response(`room ${meta.kind}:${meta.roomId} is not relayed (its kind is not in ROOM_RELAYS and it was made without relays=K)`, { status: 409 });
    return this.relayLinks.accept(meta, this.simulation, ns, this.roomMadeWith);
  }

  /** A relay object's own counters (RPC from its simulation's DEV_MODE stats); null when it holds no relay. */
  relayStats(): Promise<RelayObjectStats | null> {
    return this.busy.run(async () => (this.asRelay ? this.asRelay.stats() : null), "stats");
  }

  /** This object as a relay (its role: see {@link role}). */
  private relaySide(): RelayObjectSide {
    return (this.asRelay ??= new RelayObjectSide(
      () => this.roomsNamespace(),
      (kind) => this.games[kind],
      (bytes, reported) => this.observeBuffered(bytes, reported),
      this.busy,
    ));
  }

  /** The rooms' namespace (the gateway's `ROOMS`), which holds simulations and relays alike. */
  private roomsNamespace(): DurableObjectNamespace | null {
    const ns = (this.env as { ROOMS?: DurableObjectNamespace } | undefined)?.ROOMS;
    return ns && typeof ns.idFromName === "function" ? ns : null;
  }

  /**
   * The admin API's room side (RPC from the gateway's admin routes, gateway `adminGateway.ts`):
   * the room's detail, metric points or summary, or an operator's action, run as one event of
   * the room. A room that is not made (none since the last restart, and no checkpoint to bring
   * back) is `not_found`; the list's summary of it is null.
   */
  admin(kind: string, roomId: string, req: RoomAdminRpcRequest): Promise<AdminRoomAnswer | AdminStatsSummary | null> {
    return this.busy.run(() => this.adminAnswer(kind, roomId, req), "rpc");
  }

  private async adminAnswer(kind: string, roomId: string, req: RoomAdminRpcRequest): Promise<AdminRoomAnswer | AdminStatsSummary | null> {
    this.restoreAfterHibernation();
    if (!this.room && this.keeping.savedCheckpoint !== undefined) this.roomFor({ kind, roomId, options: {}, params: {} });
    if (!this.room || !this.operations || this.room.kind !== kind || this.room.roomId !== roomId) {
      return req.op === "summary" ? null : { ok: false, error: adminError("not_found", `room ${kind}/${roomId} is not running`) };
    }
    return this.operations.handle(req);
  }

  /** The room, made from `meta` when there is none, relayed as its plan says (core placement). */
  private roomFor(meta: RoomRequestMeta, listing?: ListingInit): HostedRoom | null {
    if (this.room) return this.room;
    const def = this.games[meta.kind];
    // A relay object makes no room (a matchmaker's or an operator's call that reached one).
    if (!def || this.role === "relay") return null;
    this.role = "room";
    // A kept room comes back made as it was (core roomMadeWith.ts), whatever the overrides of the join that wakes it.
    const made = makingFor(this.keeping.savedCheckpoint, meta);
    return this.make(def as GameDefinition, made, listing, this.promotion.place(made.kind, def as GameDefinition, this.env, made.options, this.keeping.savedRelays()));
  }

  /** Makes the room `meta` names over `relays` relays (0: single), and wires the object's parts to it. */
  private make(def: GameDefinition, meta: RoomRequestMeta, listing: ListingInit | undefined, relays: number): HostedRoom {
    const hooks: RoomHooks = {
      onSeated: (connId, ticket) => {
        this.sockets?.seated(connId, ticket);
        this.promotion.promoteWhenDue();
      },
      // Queued in storage, never blocking the room.
      onSessionStart: (info) => void (this.records && this.ctx.waitUntil(this.records.sessionStarted(info))),
      onCheckpointDue: (soon) => this.keeping.checkpointDue(soon),
      onSeatRecord: (playerId, record) => this.keeping.seatRecord(playerId, record),
      onSessionEnd: (record) => {
        if (this.records) this.ctx.waitUntil(this.records.sessionEnded(record));
        this.linger.letGoWhenEmpty();
      },
      onDeferred: (work) => this.ctx.waitUntil(work),
      // Deferred: the status is read after the change (and a bot's bookkeeping) settles.
      onStatusChange: () => queueMicrotask(() => this.reporter?.changed()),
    };
    const makings = { hooks, env: this.env, store: this.keeping.store, busy: this.busy, recording: this.replays?.sink() };
    const { room, simulation } = makeRoom(def, meta, listing, relays, makings);
    this.simulation = simulation;
    this.relayedOver = simulation ? relays : 0;
    this.roomMadeWith = { options: meta.options, params: meta.params };
    this.relayLinks.clear();
    this.room = room;
    // The one choice of socket API (see socketApis.ts).
    this.sockets = room.ticking ? new StandardSockets(room, this.observeBuffered, this.busy) : new HibernatingSockets(room, this.observeBuffered, this.ctx, meta);
    this.reportsSent += this.reporter?.sent ?? 0;
    this.reporter = statusReporterFor(this.env, def.matchmaking, meta.kind, meta.roomId, room, (work) => this.ctx.waitUntil(work), this.busy);
    const env = this.env as OperationsEnv | undefined;
    const dataset = metricsDataset(env);
    this.operations = new RoomOperations(room, this.ctx.storage, { intervalMs: metricsIntervalMs(env), write: dataset ? (p) => dataset.writeDataPoint(metricsDataPoint(p)) : undefined });
    room.restoreBans(this.savedBans);
    this.keeping.roomMade(room, roomMadeWith(meta));
    return room;
  }

  /**
   * A promotion's remaking of the room (core placement/promotion.ts): the old room's checkpoint,
   * bans and overrides make a relayed room over `relays` in its place, as a restart would bring
   * it back; when that throws (a game that cannot be relayed), the old room is put back as it was.
   */
  private remakeRelayed(old: HostedRoom, relays: number): HostedRoom | null {
    // The old room's store (and a checkpoint the simulation's replaces below) is written first.
    this.keeping.saveCheckpoint();
    this.keeping.savedCheckpoint = old.checkpoint();
    this.savedBans = old.activeBans();
    const reporter = this.reporter;
    this.room = null;
    let made: HostedRoom | null;
    try {
      const def = this.games[old.kind];
      made = def ? this.make(def as GameDefinition, { kind: old.kind, roomId: old.roomId, ...this.roomMadeWith }, undefined, relays) : null;
    } catch (e) {
      // Nothing of the old room was touched yet.
      this.room = old;
      this.keeping.savedCheckpoint = undefined;
      throw e;
    }
    reporter?.stop();
    return made;
  }

  /** After hibernation the object is new but its sockets are not: rebuild the room, re-seat them. */
  private restoreAfterHibernation(): void {
    if (this.room) return;
    const first = this.ctx.getWebSockets()[0]?.deserializeAttachment() as SocketAttachment | null | undefined;
    if (!first || !this.roomFor(first.meta)) return;
    this.sockets?.reattach();
  }

  /** A room that stayed empty (core room/emptyRoomLinger.ts): disposed (its game hears `onDispose`), its store saved, dropped. */
  private letGo(room: HostedRoom): void {
    room.dispose();
    this.keeping.saveCheckpoint();
    this.reporter?.stop();
    this.room = null;
    this.simulation = null;
    this.relayedOver = 0;
    this.relayLinks.clear();
    this.sockets = null;
    this.reporter = null;
  }
}
