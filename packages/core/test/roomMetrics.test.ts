import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryWriter, PROTOCOL_VERSION, encodeHello, type MetricPoint } from "@tikron/protocol";
import { FakeClock, Room, RoomMetrics, type RoomStatsSnapshot } from "../src";
import { CounterGame, FakeConnection } from "./fakes";

/** A snapshot with just the fields a point reads. */
function snap(c: { frames: number; bytesOut: number; bytesIn: number; messagesIn: number; errors: Record<string, number>; closes: Record<string, number>; ccu: number; p99: number; uptimeMs?: number }): RoomStatsSnapshot {
  return { kind: "k", roomId: "r", uptimeMs: c.uptimeMs ?? 0, ccu: c.ccu, seats: c.ccu, frames: c.frames, bytesOut: c.bytesOut, bytesIn: c.bytesIn, messagesIn: c.messagesIn, errors: c.errors, closes: c.closes, flush: { p99: c.p99 } } as unknown as RoomStatsSnapshot;
}

describe("room metrics", () => {
  it("a point is the counters' growth over its interval, the clients at its end and the recent flush p99", () => {
    const written: MetricPoint[] = [];
    const m = new RoomMetrics({ write: (p) => written.push(p) });
    expect(m.due(1_000, 60_000)).toBe(true);
    const first = m.sample(snap({ frames: 10, bytesOut: 500, bytesIn: 40, messagesIn: 4, errors: { bad_input: 1 }, closes: { 1000: 2 }, ccu: 3, p99: 1.5, uptimeMs: 30_000 }), 100_000);
    expect(first).toEqual({ at: 100_000, intervalMs: 30_000, kind: "k", roomId: "r", clients: 3, seats: 3, frames: 10, bytesOut: 500, bytesIn: 40, messagesIn: 4, errors: 1, closes: 2, flushP99Ms: 1.5 });
    expect(m.due(159_999, 60_000)).toBe(false);
    expect(m.due(160_000, 60_000)).toBe(true);
    const second = m.sample(snap({ frames: 25, bytesOut: 900, bytesIn: 40, messagesIn: 9, errors: { bad_input: 1, rate_limited: 3 }, closes: { 1000: 2, 4004: 1 }, ccu: 1, p99: 2 }), 160_000);
    expect(second).toMatchObject({ intervalMs: 60_000, clients: 1, frames: 15, bytesOut: 400, bytesIn: 0, messagesIn: 5, errors: 3, closes: 1, flushP99Ms: 2 });
    expect(written).toEqual([first, second]);
    expect(m.points()).toEqual([first, second]);
  });

  it("keeps the last points only", () => {
    const m = new RoomMetrics({ keep: 3 });
    for (let i = 1; i <= 5; i++) m.sample(snap({ frames: i, bytesOut: 0, bytesIn: 0, messagesIn: 0, errors: {}, closes: {}, ccu: i, p99: 0 }), i * 1000);
    expect(m.points().map((p) => p.clients)).toEqual([3, 4, 5]);
  });

  it("the points of a room add up to its counters and its life, however they are spaced", () =>
    fc.assert(
      fc.property(fc.array(fc.record({ frames: fc.nat(1000), bytes: fc.nat(100_000), errs: fc.nat(5), closes: fc.nat(3), dt: fc.integer({ min: 1, max: 120_000 }) }), { minLength: 1, maxLength: 30 }), (steps) => {
        const m = new RoomMetrics({ keep: 100 });
        const total = { frames: 0, bytes: 0, errs: 0, closes: 0 };
        let now = 0;
        for (const s of steps) {
          total.frames += s.frames;
          total.bytes += s.bytes;
          total.errs += s.errs;
          total.closes += s.closes;
          now += s.dt;
          m.sample(snap({ frames: total.frames, bytesOut: total.bytes, bytesIn: 0, messagesIn: 0, errors: { a: total.errs }, closes: { 1000: total.closes }, ccu: 0, p99: 0, uptimeMs: now }), now);
        }
        const pts = m.points();
        const add = (k: keyof MetricPoint) => pts.reduce((n, p) => n + (p[k] as number), 0);
        expect([add("frames"), add("bytesOut"), add("errors"), add("closes"), add("intervalMs")]).toEqual([total.frames, total.bytes, total.errs, total.closes, now]);
      }),
    ));

  it("counts a counter that went backwards (a new room instance) afresh instead of negative", () => {
    const m = new RoomMetrics();
    m.sample(snap({ frames: 100, bytesOut: 100, bytesIn: 0, messagesIn: 0, errors: {}, closes: {}, ccu: 0, p99: 0 }), 1_000);
    expect(m.sample(snap({ frames: 7, bytesOut: 150, bytesIn: 0, messagesIn: 0, errors: {}, closes: {}, ccu: 0, p99: 0 }), 2_000)).toMatchObject({ frames: 7, bytesOut: 50 });
  });

  it("samples a real room's snapshot", () => {
    const clock = new FakeClock();
    const room = new Room({ kind: "counter", roomId: "r1", game: new CounterGame(), clock });
    const conn = new FakeConnection();
    const id = room.open(conn, "ann");
    room.message(id, encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: "a" }).toBytes());
    clock.advance(1_000);
    const p = new RoomMetrics().sample(room.snapshot(), clock.now());
    expect(p).toMatchObject({ kind: "counter", roomId: "r1", clients: 1, seats: 1, messagesIn: 1 });
    expect(p.frames).toBeGreaterThan(0);
    expect(p.bytesOut).toBe(room.snapshot().bytesOut);
  });
});
