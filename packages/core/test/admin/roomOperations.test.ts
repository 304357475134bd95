/**
 * A room's operator side (admin/roomOperations.ts), with a real core room: metric points handed
 * to the host's writer and kept for the admin API, sampled by a timer only while a ticking room
 * has players and on events for a turn-based one; bans kept in the host's storage.
 */
import { BinaryWriter, PROTOCOL_VERSION, encodeHello, type AdminBan, type MetricPoint } from "@tikron/protocol";
import { Room, systemClock } from "../../src";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CounterGame, FakeConnection } from "../fakes";
import { BANS_KEY, RoomOperations, metricsIntervalMs, type BanStorage } from "../../src/admin/roomOperations";

beforeEach(() => vi.useFakeTimers({ now: 1_700_000_000_000 }));
afterEach(() => vi.useRealTimers());

function storage() {
  const m = new Map<string, unknown>();
  return { m, get: async (k: string) => m.get(k), put: async (k: string, v: unknown) => void m.set(k, structuredClone(v)) } as unknown as BanStorage & { m: Map<string, unknown> };
}

function room(ticking = true) {
  const game = new CounterGame();
  (game as { ticking: boolean }).ticking = ticking;
  const r = new Room({ kind: "counter", roomId: "r1", game, clock: systemClock });
  const join = (identity: string) => {
    const conn = new FakeConnection();
    const id = r.open(conn, identity);
    r.message(id, encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: identity }).toBytes());
    return { conn, id };
  };
  return { r, join };
}

describe("metric points", () => {
  it("the interval is METRICS_INTERVAL_SECONDS (at least 1 s), a minute by default", () => {
    expect(metricsIntervalMs(undefined)).toBe(60_000);
    expect(metricsIntervalMs({ METRICS_INTERVAL_SECONDS: "5" })).toBe(5_000);
    expect(metricsIntervalMs({ METRICS_INTERVAL_SECONDS: "0.01" })).toBe(1_000);
    expect(metricsIntervalMs({ METRICS_INTERVAL_SECONDS: "soon" })).toBe(60_000);
  });

  it("a ticking room is sampled by a timer while it has players; the last point as it empties, then nothing", async () => {
    const { r, join } = room(true);
    const written: MetricPoint[] = [];
    const ops = new RoomOperations(r, storage(), { intervalMs: 10_000, write: (p) => written.push(p) });
    const ann = join("ann");
    ops.activity();
    ops.activity(); // one timer, however many events
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ops.points()).toHaveLength(1);
    expect(ops.points()[0]).toMatchObject({ kind: "counter", roomId: "r1", clients: 1, intervalMs: expect.any(Number) });
    expect(ops.points()[0]!.frames).toBeGreaterThan(0);
    expect(written).toEqual([ops.points()[0]]);
    r.closed(ann.id, 1000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ops.points().map((p) => p.clients)).toEqual([1, 0]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ops.points()).toHaveLength(2);
    r.dispose();
  });

  it("a turn-based room is sampled on its events when a point is due, never by a timer", async () => {
    const { r, join } = room(false);
    const ops = new RoomOperations(r, storage(), { intervalMs: 10_000 });
    join("ann");
    ops.activity();
    expect(ops.points()).toHaveLength(1);
    ops.activity();
    expect(ops.points()).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ops.points()).toHaveLength(1);
    ops.activity();
    expect(ops.points()).toHaveLength(2);
    r.dispose();
  });
});

describe("the admin RPC's room side", () => {
  it("answers summaries and requests, and keeps bans in storage for the next instance", async () => {
    const { r, join } = room(true);
    const store = storage();
    const ops = new RoomOperations(r, store, { intervalMs: 60_000 });
    join("ann");
    expect(await ops.handle({ op: "summary" })).toMatchObject({ ccu: 1, seats: 1 });
    expect(await ops.handle({ op: "ban", identity: "ann", seconds: 60, reason: "x" })).toMatchObject({ ok: true, body: { op: "ban", identity: "ann", affected: 1 } });
    expect((store.m.get(BANS_KEY) as AdminBan[]).map((b) => b.identity)).toEqual(["ann"]);
    const next = room(true);
    next.r.restoreBans(await RoomOperations.loadBans(store));
    expect(next.r.admitSocket("ann")).toMatchObject({ counter: "banned" });
    await ops.handle({ op: "unban", identity: "ann" });
    expect(store.m.get(BANS_KEY)).toEqual([]);
    r.dispose();
    next.r.dispose();
  });
});
