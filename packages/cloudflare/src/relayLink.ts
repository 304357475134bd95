/**
 * The link between a relayed room's simulation object and its relay objects (AGENTS.md
 * "Relays"): how a relay object is named (the core's rule, `@tikron/core/join`), the one transport choice ({@link SocketPort}), and
 * the RPC a simulation asks its relays' counters with. Nothing here needs `cloudflare:workers` (the
 * gateway imports the naming and is unit-tested in Node).
 */
import type { RelayObjectStats, RelayPort } from "@tikron/core/relay";

export type { RelayObjectStats };

/** The objects' names in the rooms' namespace: the core join gate's one naming rule, every host's. */
export { relayObjectName, roomObjectName } from "@tikron/core/join";

/** A relay object's RPC surface as its simulation sees it (see `RoomObject`): DEV_MODE stats only. */
export interface RelayRpc {
  /** The relay's own counters (DEV_MODE stats); null when the object holds no relay. */
  relayStats(): Promise<RelayObjectStats | null>;
}

/**
 * A {@link RelayPort} over the WebSocket a relay object opens to its simulation (`stub.fetch`
 * with `Upgrade: websocket`, accepted with the standard API on both ends): one binary message
 * per relay message, in order. The one place the transport between objects is chosen: measured
 * ~10× cheaper in worker CPU per message than an RPC call (PERFORMANCE.md, "Relays: the
 * transport between objects"). Either end's object restarting closes the socket; what follows
 * is the host's (roomObject.ts).
 */
export class SocketPort implements RelayPort {
  /** Sends that threw (the socket had closed). */
  failures = 0;

  constructor(private readonly ws: Pick<WebSocket, "send" | "close">) {}

  send(data: Uint8Array): void {
    // No copy: workerd copies the bytes on send, so the sender's reused writer may be lent here.
    try {
      this.ws.send(data);
    } catch {
      this.failures++;
    }
  }

  /** Closes the link (a relay replaced by one that started again). */
  close(): void {
    try {
      this.ws.close(1000, "replaced");
    } catch {
      // already closed
    }
  }
}
