/**
 * A room's relay plan and promotion (roomPromotion.ts) against a fake object: promoted on the
 * turn after the seat that reaches the threshold, in order (remade, reservations held, old room
 * handed over, checkpoint written), and a room whose game cannot be relayed left as it was.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BusyMeter, type HostedRoom } from "@tikron/core";
import { CloseCode } from "@tikron/protocol";
import { RoomPromotion, type PromotedObject } from "../src/roomPromotion";
import type { RoomRequestMeta } from "../src/roomRequest";

function fakeRoom(name: string, seats: number, log: string[]) {
  return {
    kind: "k",
    roomId: "r",
    seatCount: seats,
    pendingReservations: () => [{ id: `${name}-res`, identity: "p", ttlMs: 1000 }],
    holdReservations: (pending: { id: string }[]) => log.push(`${name}.hold ${pending.map((p) => p.id).join(",")}`),
    handOver: (code: number) => log.push(`${name}.handOver ${code}`),
  };
}

describe("a room's relay plan and promotion", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  function setUp(seats: number, remake?: (old: HostedRoom, relays: number) => HostedRoom | null) {
    const log: string[] = [];
    let current: HostedRoom | null = fakeRoom("old", seats, log) as unknown as HostedRoom;
    let relayed = false;
    const object: PromotedObject = {
      current: () => current,
      relayed: () => relayed,
      saveCheckpoint: () => log.push("save"),
      remakeRelayed:
        remake ??
        ((_old, relays) => {
          log.push(`remake ${relays}`);
          current = fakeRoom("new", seats, log) as unknown as HostedRoom;
          relayed = true;
          return current;
        }),
    };
    const promotion = new RoomPromotion(object, new BusyMeter());
    return { promotion, log, room: () => current, setRoom: (r: HostedRoom | null) => (current = r) };
  }

  const meta: RoomRequestMeta = { kind: "k", roomId: "r", options: {}, params: {} };

  it("chooses a new room's relays: a promotion's own, else a stored count, else the rule's from the start", () => {
    const { promotion } = setUp(0);
    expect(promotion.newRoom(meta, undefined as never, { ROOM_RELAYS: "k=2@3" }, 0, 0)).toBe(0);
    expect(promotion.plan).toEqual({ relays: 2, at: 3 });
    expect(promotion.newRoom(meta, undefined as never, { ROOM_RELAYS: "k=2@3" }, 0, 4)).toBe(4);
    expect(promotion.newRoom(meta, undefined as never, { ROOM_RELAYS: "k=2@3" }, 2, 0)).toBe(2);
    expect(promotion.newRoom(meta, undefined as never, { ROOM_RELAYS: "k=3" }, 0, 0)).toBe(3);
    expect(promotion.newRoom(meta, undefined as never, {}, 0, 0)).toBe(0);
  });

  it("promotes a room at its threshold on the next turn, in order: remade, reservations held, old handed over, saved", () => {
    const { promotion, log } = setUp(3);
    promotion.plan = { relays: 2, at: 3 };
    promotion.promoteWhenDue();
    promotion.promoteWhenDue();
    expect(log).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(log).toEqual(["remake 2", "new.hold old-res", `old.handOver ${CloseCode.going_away}`, "save"]);
    promotion.promoteWhenDue();
    vi.advanceTimersByTime(0);
    expect(log).toHaveLength(4);
  });

  it("does not promote below the threshold, without a threshold, or a room let go before its turn", () => {
    const below = setUp(2);
    below.promotion.plan = { relays: 2, at: 3 };
    below.promotion.promoteWhenDue();
    const fromStart = setUp(5);
    fromStart.promotion.plan = { relays: 2, at: 0 };
    fromStart.promotion.promoteWhenDue();
    const gone = setUp(3);
    gone.promotion.plan = { relays: 2, at: 3 };
    gone.promotion.promoteWhenDue();
    gone.setRoom(null);
    vi.advanceTimersByTime(0);
    expect([below.log, fromStart.log, gone.log]).toEqual([[], [], []]);
  });

  it("leaves a room whose game cannot be relayed as it was, and does not try again", () => {
    let tries = 0;
    const { promotion, log, room } = setUp(3, () => {
      tries++;
      throw new Error("its sync names no world");
    });
    const before = room();
    promotion.plan = { relays: 2, at: 3 };
    promotion.promoteWhenDue();
    vi.advanceTimersByTime(0);
    expect(tries).toBe(1);
    expect(log).toEqual([]);
    expect(room()).toBe(before);
    expect(promotion.plan).toEqual({ relays: 0, at: 0 });
    promotion.promoteWhenDue();
    vi.advanceTimersByTime(0);
    expect(tries).toBe(1);
  });
});
