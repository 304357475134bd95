/**
 * A room object acting as a relay of a relayed room (`RelayObjectSide`). The relay is a
 * `SocketRoom` like a single room: its client sockets go through the object's one socket table
 * (socketApis.ts `StandardSockets`: a relay ticks while it has sockets, so hibernation would
 * save nothing).
 */
import { systemClock, type BusyMeter, type GameDefinition } from "@tikron/core";
import { createRelay, relayObjectStats, relinkRelay, type RelayRoom } from "@tikron/core/relay";
import { CloseCode, type SpectateRequest } from "@tikron/protocol";
import { roomObjectName, SocketPort, type RelayObjectStats } from "./relayLink";
import { readRoomMeta, writeRoomMeta, type RoomRequestMeta } from "./roomRequest";
import { StandardSockets, type ObserveBuffered } from "./socketApis";

/**
 * A room object as relay `meta.relay` of a relayed room: made by the first join the gateway
 * sends it, which opens the link to the simulation (a WebSocket, relayLink.ts; the simulation
 * takes the relay and makes the room if needed); every join is then admitted by the relay's
 * own per-caller limits and opened on it. Seats, bans and the cap are the simulation's, which
 * answers through the relay.
 *
 * When the link closes (the simulation's object restarted, or failed), the relay keeps its
 * seated clients' sockets (`RelayRoom.unlinked`) and links again with bounded retries and
 * backoff: the simulation, back from its checkpoint, takes each client back into its seat with
 * a welcome (`RelayRoom.relinked`). Joins meanwhile are refused with a retry (503). A relay that
 * cannot link again within core `RELINK_GIVE_UP_MS`, or is refused for good (4xx), closes its
 * clients with `going_away` and forgets itself: they rejoin their held seats through the gateway.
 */
export class RelayObjectSide {
  private relay: RelayRoom | null = null;
  /** The relay's sockets once its link is open, or why it could not be. */
  private host: Promise<StandardSockets | Response> | null = null;
  private port: SocketPort | null = null;
  private index = 0;
  /** The join that made the relay: what it links to the simulation with, again after a lost link. */
  private linkMeta: RoomRequestMeta | null = null;
  /** Failed sends of links before the current one. */
  private pastLinkFailures = 0;

  /**
   * @param rooms the rooms' namespace (simulations and relays alike), null without a binding.
   * @param definition the game definition of a kind.
   * @param observeBuffered sees the sockets' backlog readings.
   * @param busy the object's meter: socket and link events, and the relay's timers, are its entries.
   */
  constructor(
    private readonly rooms: () => DurableObjectNamespace | null,
    private readonly definition: (kind: string) => GameDefinition | undefined,
    private readonly observeBuffered: ObserveBuffered,
    private readonly busy: BusyMeter,
  ) {}

  /** A join the gateway sent to this relay. */
  async join(meta: RoomRequestMeta, spectate?: SpectateRequest | null): Promise<Response> {
    const host = await (this.host ??= this.start(meta));
    // What follows the await runs in a turn of its own: the object's time too.
    return this.busy.run(() => this.admit(host, meta, spectate), "request");
  }

  /** Admits and opens a join on the relay, or answers why not. */
  private admit(host: StandardSockets | Response, meta: RoomRequestMeta, spectate?: SpectateRequest | null): Response {
    if (host instanceof Response) {
      this.host = null;
      return host.clone();
    }
    // While its link is down the relay refuses (503, retry): see `RelayRoom.admitSocket`.
    return host.join(meta, spectate);
  }

  /** The relay's own counters; null when this object holds no relay. */
  async stats(): Promise<RelayObjectStats | null> {
    const relay = this.relay;
    const host = this.host && (await this.host);
    if (!relay) return null;
    const sockets = host instanceof StandardSockets ? host.count : 0;
    return relayObjectStats(relay, { index: this.index, sockets, linkFailures: this.pastLinkFailures + (this.port?.failures ?? 0), busy: this.busy.reading() });
  }

  /** Opens the link to the simulation and makes the relay on it. */
  private async start(meta: RoomRequestMeta): Promise<StandardSockets | Response> {
    const def = this.definition(meta.kind);
    if (!def) return new Response(`unknown room kind ${meta.kind}`, { status: 404 });
    const link = await this.openLink(meta);
    if (link instanceof Response) return link;
    const { ws, made } = link;
    const port = new SocketPort(ws);
    const { busy } = this;
    const request = { kind: meta.kind, roomId: meta.roomId, overrides: made.options, params: made.params, clock: systemClock, busy, index: meta.relay ?? 0 };
    const relay = (this.relay = createRelay(def, request, port));
    this.index = meta.relay ?? 0;
    this.linkMeta = meta;
    this.attach(relay, ws, port);
    return new StandardSockets(relay, this.observeBuffered, busy);
  }

  /**
   * Opens a link to the room's simulation (which makes the room, or brings it back from its
   * checkpoint): the socket and the room's own overrides as the simulation made it (the
   * mirror's layout depends on them; a matchmaker's join URL carries none), or why not.
   */
  private async openLink(meta: RoomRequestMeta): Promise<{ ws: WebSocket; made: RoomRequestMeta } | Response> {
    const ns = this.rooms();
    if (!ns) return new Response("no ROOMS binding", { status: 500 });
    const headers = new Headers({ Upgrade: "websocket" });
    writeRoomMeta(headers, { ...meta, route: "relay-link" });
    const answer = await ns.get(ns.idFromName(roomObjectName(meta.kind, meta.roomId))).fetch("https://relay-link/", { headers });
    const ws = answer.webSocket;
    if (!ws) return new Response(await answer.text(), { status: answer.status === 101 ? 500 : answer.status });
    return { ws, made: readRoomMeta(answer.headers) ?? meta };
  }

  /** Takes `ws` as the relay's link: its messages go to the relay, its end starts a relink. */
  private attach(relay: RelayRoom, ws: WebSocket, port: SocketPort): void {
    this.port = port;
    ws.binaryType = "arraybuffer";
    // Messages that came before the accept wait for it.
    ws.accept();
    const { busy } = this;
    ws.addEventListener("message", busy.wrap((e: MessageEvent) => relay.receive(new Uint8Array(e.data as ArrayBuffer)), "link"));
    const lost = busy.wrap((): void => this.lost(relay, port), "link");
    ws.addEventListener("close", lost);
    ws.addEventListener("error", lost);
  }

  /** The link to the simulation closed: the relay keeps its seated clients and links again. */
  private lost(relay: RelayRoom, port: SocketPort): void {
    if (this.relay !== relay || this.port !== port) return;
    this.pastLinkFailures += port.failures;
    this.port = null;
    if (relay.unlinked() === 0) return this.forget(relay);
    void this.relink(relay);
  }

  /**
   * Links again, at once and then with backoff, until it gives up or the simulation refuses for
   * good (core `relinkRelay`); then the relay's clients are closed as before.
   */
  private async relink(relay: RelayRoom): Promise<void> {
    const meta = this.linkMeta!;
    const ended = await relinkRelay<WebSocket>(
      relay,
      {
        attempt: async () => {
          const link = await this.openLink(meta);
          return link instanceof Response ? { status: link.status, text: await link.text() } : { link: link.ws };
        },
        current: () => this.relay === relay,
        linked: (ws) => {
          const port = new SocketPort(ws);
          this.attach(relay, ws, port);
          this.busy.run(() => relay.relinked(port), "link");
        },
        discard: (ws) => new SocketPort(ws).close(),
      },
      systemClock,
    );
    if (ended.outcome === "linked" || ended.outcome === "stale") return;
    if (ended.outcome === "gave-up") console.warn(`[relay ${meta.kind}:${meta.roomId}#${this.index}] could not link to the simulation again (${ended.why}); closing its clients`);
    this.forget(relay);
  }

  /** Drops the relay: its clients are closed with `going_away`, and the next join makes it again. */
  private forget(relay: RelayRoom): void {
    if (this.relay !== relay) return;
    this.relay = null;
    this.host = null;
    if (this.port) this.pastLinkFailures += this.port.failures;
    this.port = null;
    relay.dispose(CloseCode.going_away, "the room restarted; reconnect");
  }
}
