/**
 * A host's empty-room timer (room/emptyRoomLinger.ts) on a fake clock: a room let go only once
 * it stayed without seats, sockets and seat reservations for the whole linger.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../src/fakeClock";
import { EMPTY_ROOM_LINGER_MS, EmptyRoomLinger, type LingeringRoom } from "../src/room/emptyRoomLinger";
import type { RoomStatus } from "../src/match/roomStatus";

function room(seats: number, reserved: number): LingeringRoom & { seatCount: number; reserved: number } {
  const r = { seatCount: seats, reserved, status: () => ({ reserved: r.reserved }) as RoomStatus };
  return r;
}

describe("empty-room linger", () => {
  it("lets a room go after the linger, not while a seat, a socket or a reservation is there", () => {
    const clock = new FakeClock(0);
    const current = room(0, 1);
    let sockets = 1;
    const gone: unknown[] = [];
    const linger = new EmptyRoomLinger(clock, () => current, () => sockets, (r) => gone.push(r));
    linger.letGoWhenEmpty();
    linger.letGoWhenEmpty();
    clock.advance(EMPTY_ROOM_LINGER_MS);
    // A socket still open: another while.
    expect(gone).toEqual([]);
    sockets = 0;
    clock.advance(EMPTY_ROOM_LINGER_MS);
    // A reservation still pending: another while.
    expect(gone).toEqual([]);
    current.reserved = 0;
    clock.advance(EMPTY_ROOM_LINGER_MS - 1);
    expect(gone).toEqual([]);
    clock.advance(1);
    expect(gone).toEqual([current]);
  });

  it("keeps a room that took a seat meanwhile", () => {
    const clock = new FakeClock(0);
    const current = room(0, 0);
    const gone: unknown[] = [];
    const linger = new EmptyRoomLinger(clock, () => current, () => 0, (r) => gone.push(r));
    linger.letGoWhenEmpty();
    current.seatCount = 1;
    clock.advance(2 * EMPTY_ROOM_LINGER_MS);
    expect(gone).toEqual([]);
  });
});
