/**
 * How long a host keeps a room nobody is in before letting it go, and the timer that waits it
 * out, on the core `Clock`. One rule for what "empty" means (no seat, no socket, no seat
 * reservation) and how long it must last; what letting go does is the host's (the Cloudflare
 * adapter's `RoomObject.letGo`).
 */
import type { Clock, TimerHandle } from "../clock";
import type { HostedRoom, ListedRoom } from "../hostedRoom";

/** What the linger reads of a room: its seats and its pending reservations (`status().reserved`). */
export type LingeringRoom = Pick<HostedRoom, "seatCount"> & Pick<ListedRoom, "status">;

/**
 * How long a room with no seat, no socket and no seat reservation is kept before it is disposed
 * (its game hears `onDispose` and may flush results) and let go; the next join makes a new one.
 */
export const EMPTY_ROOM_LINGER_MS = 10_000;

/** The empty-room timer of one host's room. */
export class EmptyRoomLinger<R extends LingeringRoom = LingeringRoom> {
  private timer: TimerHandle | null = null;

  /**
   * `current` is the room the host holds, `sockets` how many sockets it holds open; `letGo`
   * disposes and drops a room that stayed empty. `clock` runs the timer (a host's metered clock:
   * an entry of the host).
   */
  constructor(
    private readonly clock: Clock,
    private readonly current: () => R | null,
    private readonly sockets: () => number,
    private readonly letGo: (room: R) => void,
  ) {}

  /**
   * The last seat was freed: once the room has stayed without seats, sockets and seat
   * reservations for {@link EMPTY_ROOM_LINGER_MS}, it is let go; a seat taken meanwhile keeps
   * it, a socket or a reservation still there waits another while.
   */
  letGoWhenEmpty(): void {
    if (this.timer !== null) return;
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      const room = this.current();
      if (!room || room.seatCount > 0) return;
      if (this.sockets() > 0 || room.status().reserved > 0) return this.letGoWhenEmpty();
      this.letGo(room);
    }, EMPTY_ROOM_LINGER_MS);
  }
}
