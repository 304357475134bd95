/**
 * The sockets of one room (a single room's, or a relay's) by the host's socket and by the room's
 * connection id: the one socket table every host keeps (the Cloudflare adapter's socket APIs, the
 * Node host's `ws` sockets). A message goes to the room under its socket's id; a close or a
 * failure is heard by the room once, and the socket is forgotten.
 */
import type { SocketRoom } from "./hostedRoom";

/** A room's sockets of type `S` (see the module comment). */
export class SocketTable<S, R extends SocketRoom = SocketRoom> {
  private readonly connIds = new Map<S, number>();
  private readonly byId = new Map<number, S>();

  /**
   * @param room the room (or relay) the sockets are open on.
   * @param closeSocket finishes a close the peer began (the host's socket API; nothing where the
   *   socket is closed already).
   */
  constructor(
    protected readonly room: R,
    private readonly closeSocket: (socket: S, code: number) => void,
  ) {}

  /** Open sockets. */
  get count(): number {
    return this.connIds.size;
  }

  /** A message on `socket`: the room's, under its connection id. */
  message(socket: S, data: string | ArrayBuffer | Uint8Array): void {
    const id = this.connIds.get(socket);
    if (id !== undefined) this.room.message(id, data);
  }

  /** The peer closed `socket`: the room holds or frees the seat, then the close is finished. */
  closed(socket: S, code: number, reason: string): void {
    const id = this.untrack(socket);
    if (id !== undefined) this.room.closed(id, code, reason);
    this.closeSocket(socket, code);
  }

  /** `socket` failed: the room hears of it as a close with `code` (1006, or 1009 for a frame over the runtime's limit). */
  failed(socket: S, code: number): void {
    const id = this.untrack(socket);
    if (id !== undefined) this.room.closed(id, code, "socket error");
  }

  /** `socket` is open in the room as `connId`. */
  track(socket: S, connId: number): void {
    this.connIds.set(socket, connId);
    this.byId.set(connId, socket);
  }

  /** The socket open as `connId`, if any. */
  socketOf(connId: number): S | undefined {
    return this.byId.get(connId);
  }

  private untrack(socket: S): number | undefined {
    const id = this.connIds.get(socket);
    this.connIds.delete(socket);
    if (id !== undefined) this.byId.delete(id);
    return id;
  }
}
