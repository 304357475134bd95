/**
 * `SimulationLinks`: a relayed room's simulation object's side of the links its relay objects
 * open (relayLink.ts): one WebSocket per relay, accepted with the standard API (the simulation
 * ticks, so hibernation would save nothing and costs more per message).
 */
import type { BusyMeter } from "@tikron/core";
import type { RelaySimulation } from "@tikron/core/relay";
import { writeRoomMeta, type RoomRequestMeta } from "./roomRequest";
import { relayObjectName, SocketPort, type RelayObjectStats, type RelayRpc } from "./relayLink";

/** The relay objects linked to one simulation, by relay index. */
export class SimulationLinks {
  private readonly links = new Map<number, { port: SocketPort; stats: RelayRpc }>();

  /** @param busy the simulation object's meter: each link event is an entry of the object. */
  constructor(private readonly busy: BusyMeter) {}

  /**
   * Accepts the link relay `meta.relay` opened and connects it to `simulation`; the answer
   * carries, in the room metadata header, the overrides the room was made with (`made`), which
   * the relay makes its mirror with: its own join URL may have none (a matchmaker's carries only
   * the reservation) or others. A link under an
   * index already linked is a relay that started again (its object was evicted or failed): its
   * old sockets are gone, so their seats are held for reconnection, as for any dropped socket.
   * A link that closes is a relay that is gone: the same.
   */
  accept(meta: RoomRequestMeta, simulation: RelaySimulation, ns: DurableObjectNamespace, made: Pick<RoomRequestMeta, "options" | "params">): Response {
    const index = meta.relay ?? 0;
    const old = this.links.get(index);
    if (old) {
      this.links.delete(index);
      simulation.disconnectRelay(old.port);
      old.port.close();
    }
    const pair = new WebSocketPair();
    const server = pair[1];
    server.binaryType = "arraybuffer";
    server.accept();
    const port = new SocketPort(server);
    const receive = simulation.connectRelay(port);
    const stats = ns.get(ns.idFromName(relayObjectName(meta.kind, meta.roomId, index))) as unknown as RelayRpc;
    this.links.set(index, { port, stats });
    server.addEventListener("message", this.busy.wrap((e: MessageEvent) => receive(new Uint8Array(e.data as ArrayBuffer)), "link"));
    const lost = this.busy.wrap((): void => {
      if (this.links.get(index)?.port !== port) return;
      this.links.delete(index);
      simulation.disconnectRelay(port);
    }, "link");
    server.addEventListener("close", lost);
    server.addEventListener("error", lost);
    const headers = new Headers();
    writeRoomMeta(headers, { kind: meta.kind, roomId: meta.roomId, options: made.options, params: made.params });
    return new Response(null, { status: 101, webSocket: pair[0], headers });
  }

  /** Each relay object's counters, for DEV_MODE stats (a relay that does not answer is left out). */
  async stats(): Promise<RelayObjectStats[]> {
    const asked = [...this.links.values()].map((l) => l.stats.relayStats().catch(() => null));
    return (await Promise.all(asked)).filter((s): s is RelayObjectStats => s !== null);
  }

  /** Forgets every link (the room they fed was let go or made anew). */
  clear(): void {
    for (const l of this.links.values()) l.port.close();
    this.links.clear();
  }
}
