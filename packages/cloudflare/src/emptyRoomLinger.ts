/**
 * How long a room's object keeps a room nobody is in before letting it go, and the timer that
 * waits it out. Apart from `RoomObject` because what "empty" means (no seat, no socket, no seat
 * reservation) and how long it must last is one rule; what letting go does is the object's.
 */
import type { BusyMeter, HostedRoom } from "@tikron/core";

/**
 * How long a room with no seat, no socket and no seat reservation is kept before it is disposed
 * (its game hears `onDispose` and may flush results) and let go; the next join makes a new one.
 */
export const EMPTY_ROOM_LINGER_MS = 10_000;

/** The empty-room timer of one room's object. */
export class EmptyRoomLinger {
  private timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * `current` is the room the object hosts, `sockets` how many sockets it holds open; `letGo`
   * disposes and drops a room that stayed empty. `busy` meters the timer, an entry of the object.
   */
  constructor(
    private readonly busy: BusyMeter,
    private readonly current: () => HostedRoom | null,
    private readonly sockets: () => number,
    private readonly letGo: (room: HostedRoom) => void,
  ) {}

  /**
   * The last seat was freed: once the room has stayed without seats, sockets and seat
   * reservations for {@link EMPTY_ROOM_LINGER_MS}, it is let go; a seat taken meanwhile keeps
   * it, a socket or a reservation still there waits another while.
   */
  letGoWhenEmpty(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(this.busy.wrap(() => {
      this.timer = null;
      const room = this.current();
      if (!room || room.seatCount > 0) return;
      if (this.sockets() > 0 || room.status().reserved > 0) return this.letGoWhenEmpty();
      this.letGo(room);
    }, "timer"), EMPTY_ROOM_LINGER_MS);
  }
}
