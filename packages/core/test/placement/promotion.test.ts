/**
 * A room's relay plan and promotion (placement/promotion.ts) against a fake host: promoted on the
 * turn after the seat that reaches the threshold, in order (remade, reservations held, old room
 * handed over, checkpoint written), and a room whose game cannot be relayed left as it was.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CloseCode } from "@tikron/protocol";
import { FakeClock } from "../../src/fakeClock";
import type { HostedRoom } from "../../src/hostedRoom";
import { RoomPromotion, type PromotionHost } from "../../src/placement/promotion";

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
  let clock: FakeClock;
  beforeEach(() => {
    clock = new FakeClock();
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function setUp(seats: number, remake?: (old: HostedRoom, relays: number) => HostedRoom | null) {
    const log: string[] = [];
    let current: HostedRoom | null = fakeRoom("old", seats, log) as unknown as HostedRoom;
    let relayed = false;
    const host: PromotionHost<HostedRoom> = {
      current: () => current,
      relayed: () => relayed,
      saveCheckpoint: () => log.push("save"),
      remake:
        remake ??
        ((_old, relays) => {
          log.push(`remake ${relays}`);
          current = fakeRoom("new", seats, log) as unknown as HostedRoom;
          relayed = true;
          return current;
        }),
    };
    const promotion = new RoomPromotion(host, clock);
    return { promotion, log, room: () => current, setRoom: (r: HostedRoom | null) => (current = r) };
  }

  it("chooses a new room's relays: a stored count, else the rule's from the start (a promotion remakes over its own)", () => {
    const { promotion } = setUp(0);
    expect(promotion.place("k", undefined, { ROOM_RELAYS: "k=2@3" }, {}, 0)).toBe(0);
    expect(promotion.plan).toEqual({ relays: 2, at: 3 });
    expect(promotion.place("k", undefined, { ROOM_RELAYS: "k=2@3" }, {}, 4)).toBe(4);
    expect(promotion.place("k", undefined, { ROOM_RELAYS: "k=3" }, {}, 0)).toBe(3);
    expect(promotion.place("k", undefined, {}, {}, 0)).toBe(0);
  });

  it("promotes over the plan's relays, whatever a stored count said", () => {
    const { promotion, log } = setUp(3);
    promotion.place("k", undefined, { ROOM_RELAYS: "k=2@3" }, {}, 0);
    promotion.promoteWhenDue();
    clock.advance(0);
    expect(log[0]).toBe("remake 2");
  });

  it("promotes a room at its threshold on the next turn, in order: remade, reservations held, old handed over, saved", () => {
    const { promotion, log } = setUp(3);
    promotion.plan = { relays: 2, at: 3 };
    promotion.promoteWhenDue();
    promotion.promoteWhenDue();
    expect(log).toEqual([]);
    clock.advance(0);
    expect(log).toEqual(["remake 2", "new.hold old-res", `old.handOver ${CloseCode.going_away}`, "save"]);
    promotion.promoteWhenDue();
    clock.advance(0);
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
    clock.advance(0);
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
    clock.advance(0);
    expect(tries).toBe(1);
    expect(log).toEqual([]);
    expect(room()).toBe(before);
    expect(promotion.plan).toEqual({ relays: 0, at: 0 });
    promotion.promoteWhenDue();
    clock.advance(0);
    expect(tries).toBe(1);
  });
});
