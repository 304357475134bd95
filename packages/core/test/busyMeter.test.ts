import { describe, expect, it } from "vitest";
import { BinaryWriter, PROTOCOL_VERSION, encodeHello } from "@tikron/protocol";
import { BusyMeter, FakeClock, Room } from "../src";
import { CounterGame, FakeConnection } from "./fakes";

/** A time source the test moves by hand. */
function fakeTime(start = 0) {
  const t = { now: start };
  return { t, source: () => t.now };
}

describe("BusyMeter", () => {
  it("adds the time inside each entry and nothing between entries", () => {
    const { t, source } = fakeTime(0);
    const m = new BusyMeter(source);
    m.enter();
    t.now += 3;
    m.exit();
    t.now += 100; // idle: not counted
    m.run(() => {
      t.now += 4.5;
    });
    expect(m.ms).toBe(7.5);
  });

  it("counts nested entries once, from the outermost enter to its exit", () => {
    const { t, source } = fakeTime(0);
    const m = new BusyMeter(source);
    m.run(() => {
      t.now += 1;
      m.run(() => {
        t.now += 2;
      });
      t.now += 1;
    });
    expect(m.ms).toBe(4);
    // An exit with no entry open changes nothing.
    m.exit();
    expect(m.ms).toBe(4);
  });

  it("counts an entry that throws, and stays balanced after it", () => {
    const { t, source } = fakeTime(0);
    const m = new BusyMeter(source);
    const handler = m.wrap((n: number) => {
      t.now += n;
      if (n > 1) throw new Error("bad");
      return n;
    });
    expect(handler(1)).toBe(1);
    expect(() => handler(2)).toThrow("bad");
    m.run(() => (t.now += 5));
    expect(m.ms).toBe(8);
  });

  it("files each entry's time under the outermost entry's label", () => {
    const { t, source } = fakeTime(0);
    const m = new BusyMeter(source);
    m.run(() => {
      t.now += 2;
      // A timer fired inside a request counts as the request's.
      m.run(() => (t.now += 1), "timer");
    }, "request");
    m.wrap(() => (t.now += 4), "socket")(undefined);
    m.run(() => (t.now += 0.5));
    expect(m.reading().entries).toEqual({ request: 3, socket: 4, other: 0.5 });
    expect(m.ms).toBe(7.5);
  });

  it("counts an async entry until it settles, except its waits for I/O, and entries in flight at once as the time any ran", async () => {
    const { t, source } = fakeTime(0);
    const m = new BusyMeter(source);
    let answer!: (v: number) => void;
    const io = new Promise<number>((r) => (answer = r));
    const a = m.during(async () => {
      t.now += 2;
      const got = await m.waiting(io);
      t.now += 3;
      return got;
    }, "rpc");
    // While a waits, b runs: its time alone.
    t.now += 100;
    await m.during(async () => {
      t.now += 1;
    }, "rpc");
    t.now += 50;
    answer(7);
    expect(await a).toBe(7);
    expect(m.ms).toBe(6);
    expect(m.reading().entries).toEqual({ rpc: 6 });
    // A wait outside any entry counts nothing and leaves the meter balanced.
    await m.waiting(Promise.resolve(1));
    t.now += 10;
    m.run(() => (t.now += 1));
    expect(m.ms).toBe(7);
  });

  it("does not count what another meter's entry runs while one of its own is open (objects sharing a thread)", async () => {
    const { t, source } = fakeTime(0);
    const gateway = new BusyMeter(source);
    const room = new BusyMeter(source);
    let arrived!: () => void;
    const body = new Promise<void>((r) => (arrived = r));
    const request = gateway.during(async () => {
      t.now += 2;
      // An await the gateway does not wrap (a body read): the room's timer runs meanwhile.
      await body;
      t.now += 1;
    }, "request");
    room.run(() => (t.now += 10), "timer");
    t.now += 3;
    arrived();
    await request;
    expect(room.ms).toBe(10);
    // 2 + the unwrapped wait after the room's entry (3) + 1: never the room's 10.
    expect(gateway.ms).toBe(6);
  });

  it("reports the share of its recent window (or of its life, when shorter) spent busy", () => {
    const { t, source } = fakeTime(50_000);
    const m = new BusyMeter(source, 10_000);
    // 2 s of life, 0.5 s of it busy.
    m.run(() => (t.now += 500));
    t.now += 1500;
    expect(m.reading()).toEqual({ ms: 500, entries: { other: 500 }, share: 0.25, windowMs: 10_000 });
    // 30 s later, 1 busy ms per 10 ms: the window forgets the first half second.
    for (let i = 0; i < 3000; i++) {
      m.run(() => (t.now += 1));
      t.now += 9;
    }
    const r = m.reading();
    expect(r.ms).toBe(3500);
    expect(r.share).toBeCloseTo(0.1, 3);
  });

  it("splits an entry across the seconds it covers, and a long entry fills the window", () => {
    const { t, source } = fakeTime(10_000);
    const m = new BusyMeter(source, 2_000);
    t.now = 10_900;
    m.run(() => (t.now = 11_300)); // 100 ms in second 10, 300 ms in second 11
    t.now = 12_000;
    // The window is seconds 11 and 12 (1 s of it elapsed): second 10's 100 ms are outside it.
    expect(m.reading().share).toBeCloseTo(300 / 1000, 4);
    m.run(() => (t.now = 20_000)); // 8 s: the whole window busy
    expect(m.reading().share).toBe(1);
    expect(m.ms).toBe(8400);
  });

  it("counts what a metered clock's timers and next tasks run", () => {
    const { t, source } = fakeTime(0);
    const m = new BusyMeter(source);
    const inner = new FakeClock();
    const clock = m.clock(inner);
    clock.setTimer(() => (t.now += 2), 10);
    clock.nextTask!(() => (t.now += 3));
    const cancelled = clock.setTimer(() => (t.now += 100), 5);
    clock.clearTimer(cancelled);
    expect(clock.now()).toBe(inner.now());
    inner.advance(20);
    expect(m.ms).toBe(5);
  });
});

describe("a room on a meter", () => {
  it("reports its object's busy time in tk:stats, its ticks counted", () => {
    const { t, source } = fakeTime(0);
    const busy = new BusyMeter(source);
    const clock = new FakeClock();
    class SlowGame extends CounterGame {
      override tick(now: number): void {
        t.now += 2; // each tick costs 2 ms of the object's time
        super.tick(now);
      }
    }
    const room = new Room({ kind: "counter", roomId: "r1", game: new SlowGame(), clock, busy });
    expect(room.snapshot().busy).toEqual({ ms: 0, entries: {}, share: 0, windowMs: 10_000 });
    const conn = new FakeConnection();
    const id = room.open(conn);
    // A host enters the object for each socket message; the room's tick timer enters on its own.
    busy.run(() => {
      room.message(id, encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: "p" }).toBytes());
      t.now += 1;
    });
    clock.advance(room.options.tickMs * 5);
    const s = room.snapshot();
    expect(s.ticks).toBeGreaterThanOrEqual(4);
    expect(s.busy!.ms).toBe(1 + 2 * s.ticks);
    // The room's timers count as such, the host's entry as the host labelled it.
    expect(s.busy!.entries).toEqual({ other: 1, timer: 2 * s.ticks });
    // A room no host meters says nothing of its busy time.
    expect(new Room({ kind: "counter", roomId: "r2", game: new CounterGame(), clock }).snapshot().busy).toBeUndefined();
  });
});
