/**
 * `RelayHost`: a relay of a relayed room (core `RelayRoom`) as a room object holds it, with its
 * clients' WebSockets on the standard API (a relay ticks while it has sockets, so hibernation
 * would save nothing; see socketApis.ts).
 */
import type { RelayRoom } from "@tikron/core/relay";
import type { RoomRequestMeta } from "./roomRequest";
import { SocketConnection, sendableCloseCode } from "./socketConnection";
import type { ObserveBuffered } from "./socketApis";

/** The sockets of one relay object and the relay they go to. */
export class RelayHost {
  private open = 0;

  constructor(
    /** The relay: its sockets' edge and its clients' frames. */
    readonly relay: RelayRoom,
    private readonly observeBuffered: ObserveBuffered,
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
    server.addEventListener("message", (e) => relay.message(id, e.data as ArrayBuffer | string));
    server.addEventListener("close", (e) => close(e.code));
    server.addEventListener("error", () => close(1006));
  }
}
