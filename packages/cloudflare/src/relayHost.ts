/**
 * A room object acting as a relay of a relayed room (`RelayObjectSide`), and the relay's client
 * sockets (`RelayHost`, on the standard API: a relay ticks while it has sockets, so hibernation
 * would save nothing; see socketApis.ts).
 */
import { admissionReply, systemClock, type BusyMeter, type GameDefinition } from "@tikron/core";
import { createRelay, type RelayRoom } from "@tikron/core/relay";
import { CloseCode } from "@tikron/protocol";
import { roomObjectName, SocketPort, type RelayObjectStats } from "./relayLink";
import { readRoomMeta, writeRoomMeta, type RoomRequestMeta } from "./roomRequest";
import { SocketConnection, sendableCloseCode } from "./socketConnection";
import type { ObserveBuffered } from "./socketApis";

/** The sockets of one relay object and the relay they go to. */
export class RelayHost {
  private open = 0;

  constructor(
    /** The relay: its sockets' edge and its clients' frames. */
    readonly relay: RelayRoom,
    private readonly observeBuffered: ObserveBuffered,
    /** The object's meter: each socket event is an entry of the object. */
    private readonly busy: BusyMeter,
  ) {}

  /** Sockets open on this relay. */
  get count(): number {
    return this.open;
  }

  /** Accepts the server end of a new socket pair and opens it on the relay. */
  accept(server: WebSocket, meta: RoomRequestMeta): void {
    server.binaryType = "arraybuffer";
    server.accept();
    const { relay } = this;
    const id = relay.open(new SocketConnection(server, this.observeBuffered), meta.playerId, meta.address, meta.reservation);
    this.open++;
    let closed = false;
    const close = (code: number): void => {
      if (closed) return;
      closed = true;
      this.open--;
      relay.closed(id, code);
      try {
        server.close(sendableCloseCode(code), "closing");
      } catch {
        // already closed
      }
    };
    const { busy } = this;
    server.addEventListener("message", busy.wrap((e: MessageEvent) => relay.message(id, e.data as ArrayBuffer | string)));
    server.addEventListener("close", busy.wrap((e: CloseEvent) => close(e.code)));
    server.addEventListener("error", busy.wrap(() => close(1006)));
  }
}

/**
 * A room object as relay `meta.relay` of a relayed room: made by the first join the gateway
 * sends it, which opens the link to the simulation (a WebSocket, relayLink.ts; the simulation
 * takes the relay and makes the room if needed); every join is then admitted by the relay's
 * own per-caller limits and opened on it. Seats, bans and the cap are the simulation's, which
 * answers through the relay.
 */
export class RelayObjectSide {
  private relay: RelayRoom | null = null;
  /** The relay's sockets once its link is open, or why it could not be. */
  private host: Promise<RelayHost | Response> | null = null;
  private port: SocketPort | null = null;
  private index = 0;

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
  async join(meta: RoomRequestMeta): Promise<Response> {
    const host = await (this.host ??= this.start(meta));
    // What follows the await runs in a turn of its own: the object's time too.
    return this.busy.run(() => this.admit(host, meta));
  }

  /** Admits and opens a join on the relay, or answers why not. */
  private admit(host: RelayHost | Response, meta: RoomRequestMeta): Response {
    if (host instanceof Response) {
      this.host = null;
      return host.clone();
    }
    const refusal = host.relay.admitSocket(meta.playerId, meta.address);
    if (refusal) {
      const r = admissionReply(refusal);
      return new Response(r.body, { status: r.status, headers: r.headers });
    }
    const pair = new WebSocketPair();
    host.accept(pair[1], meta);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** The relay's own counters; null when this object holds no relay. */
  async stats(): Promise<RelayObjectStats | null> {
    const relay = this.relay;
    const host = this.host && (await this.host);
    if (!relay) return null;
    const s = relay.stats;
    return {
      index: this.index,
      sockets: host instanceof RelayHost ? host.count : 0,
      seated: relay.seatedCount,
      flushes: s.flushes,
      frames: s.frames,
      bytesOut: s.bytesOut,
      messagesIn: s.messagesIn,
      flush: s.flush.summary(),
      linkFailures: this.port?.failures ?? 0,
      errors: { ...s.errors },
      busy: this.busy.reading(),
    };
  }

  /** Opens the link to the simulation and makes the relay on it. */
  private async start(meta: RoomRequestMeta): Promise<RelayHost | Response> {
    const def = this.definition(meta.kind);
    const ns = this.rooms();
    if (!def) return new Response(`unknown room kind ${meta.kind}`, { status: 404 });
    if (!ns) return new Response("no ROOMS binding", { status: 500 });
    const headers = new Headers({ Upgrade: "websocket" });
    writeRoomMeta(headers, { ...meta, route: "relay-link" });
    const answer = await ns.get(ns.idFromName(roomObjectName(meta.kind, meta.roomId))).fetch("https://relay-link/", { headers });
    const ws = answer.webSocket;
    if (!ws) return new Response(await answer.text(), { status: answer.status === 101 ? 500 : answer.status });
    const port = new SocketPort(ws);
    const { busy } = this;
    // The room's own overrides, as the simulation made it: the mirror's layout depends on them.
    const made = readRoomMeta(answer.headers) ?? meta;
    const request = { kind: meta.kind, roomId: meta.roomId, overrides: made.options, params: made.params, clock: systemClock, busy, index: meta.relay ?? 0 };
    const relay = (this.relay = createRelay(def, request, port));
    this.index = meta.relay ?? 0;
    this.port = port;
    ws.binaryType = "arraybuffer";
    // Messages that came before the accept wait for it.
    ws.accept();
    ws.addEventListener("message", busy.wrap((e: MessageEvent) => relay.receive(new Uint8Array(e.data as ArrayBuffer))));
    ws.addEventListener("close", busy.wrap(() => this.lost(relay)));
    ws.addEventListener("error", busy.wrap(() => this.lost(relay)));
    return new RelayHost(relay, this.observeBuffered, busy);
  }

  /**
   * The link to the simulation closed (its object started again, or failed): the relay's clients
   * are closed with `going_away` so they reconnect through the gateway, which makes this relay
   * again and has the simulation, back from its checkpoint, take it and give them their seats.
   */
  private lost(relay: RelayRoom): void {
    if (this.relay !== relay) return;
    this.relay = null;
    this.host = null;
    this.port = null;
    relay.dispose(CloseCode.going_away, "the room restarted; reconnect");
  }
}
