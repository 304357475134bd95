import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryWriter,
  ROOM_OVERRIDE_KEYS,
  decodeJsonServerMessage,
  decodeServerMessage,
  encodeWelcome,
  flushEveryTicks,
  flushIntervalMs,
  isRouteRefusal,
  parseRoomOverrides,
  ratesProblem,
  routeRoomUrl,
  SYNC_INTERVAL_MS_RANGE,
  TICK_MS_RANGE,
  sendableCloseCode,
  toJsonWelcome,
  type WelcomeFields,
} from "../src";

describe("flush cadence", () => {
  it("rounds the sync interval up to whole ticks: frames are never closer than syncIntervalMs, and less than a tick later", () =>
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 5000 }), (tickMs, syncIntervalMs) => {
        const n = flushEveryTicks(syncIntervalMs, tickMs);
        expect(Number.isInteger(n) && n >= 1).toBe(true);
        const gap = flushIntervalMs(syncIntervalMs, tickMs);
        expect(gap).toBe(n * tickMs);
        expect(gap).toBeGreaterThanOrEqual(Math.max(syncIntervalMs, tickMs)); // never faster than asked…
        expect(gap - Math.max(syncIntervalMs, tickMs)).toBeLessThan(tickMs); // …and less than one tick slower
      }),
    ));

  it("keeps exact multiples and documents the cases round and ceil disagree on", () => {
    expect(flushEveryTicks(50, 50)).toBe(1);
    expect(flushEveryTicks(100, 50)).toBe(2);
    expect(flushEveryTicks(60, 50)).toBe(2); // Math.round would flush every 50 ms, faster than asked
    expect(flushEveryTicks(32, 16)).toBe(2);
    expect(flushEveryTicks(30, 50)).toBe(1);
    expect(flushEveryTicks(0.3, 0.1)).toBe(3); // float noise does not add a tick
    expect(flushIntervalMs(40, 0)).toBe(40);
  });

  it("one range for rates: a game's run-time change and a join's override accept and refuse the same values", () =>
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -10, max: 6000 }), fc.double()), fc.integer({ min: 1, max: 6000 }), (tickMs, syncIntervalMs) => {
        const problem = ratesProblem({ tickMs, syncIntervalMs });
        const override = parseRoomOverrides(new URLSearchParams({ tickMs: String(tickMs), syncIntervalMs: String(syncIntervalMs) }));
        expect(problem === null, `${tickMs}/${syncIntervalMs}: ${problem} vs ${String(override)}`).toBe(typeof override !== "string");
        if (problem === null) {
          expect(tickMs).toBeGreaterThanOrEqual(TICK_MS_RANGE.min);
          expect(syncIntervalMs).toBeLessThanOrEqual(SYNC_INTERVAL_MS_RANGE.max);
        }
      }),
    ));

  it("names what is wrong with rates", () => {
    expect(ratesProblem({ tickMs: 50, syncIntervalMs: 100 })).toBeNull();
    expect(ratesProblem({ tickMs: 2.5, syncIntervalMs: 100 })).toMatch(/^tickMs must be a whole number of ms in 5\.\.1000 \(got 2\.5\)$/);
    expect(ratesProblem({ tickMs: 50, syncIntervalMs: 9000 })).toMatch(/^syncIntervalMs must be/);
    expect(ratesProblem({ tickMs: Number.NaN, syncIntervalMs: 50 })).toMatch(/got NaN/);
  });
});

describe("join URL", () => {
  const route = (path: string, devMode = true) => routeRoomUrl(new URL(path, "http://h"), { devMode, hasKind: (k) => k === "agar" });

  it("routes room paths with their overrides, and ignores other paths", () => {
    expect(route("/rooms/agar/r1")).toEqual({ kind: "agar", roomId: "r1", stats: false, bots: false, abort: false, overrides: { options: {}, params: {} } });
    expect(route("/rooms/agar/r1/stats")).toMatchObject({ stats: true, bots: false });
    expect(route("/rooms/agar/r1/bots")).toMatchObject({ stats: false, bots: true });
    expect(route("/rooms/agar/r1/abort")).toMatchObject({ stats: false, bots: false, abort: true });
    expect(route("/rooms/agar/r1?tickMs=33&queueInputs=0&world=800&other=x")).toMatchObject({
      overrides: { options: { tickMs: 33, queueInputs: false }, params: { world: 800 } },
    });
    expect(route("/health")).toBeNull();
    expect(route("/rooms/agar/r1/extra/bits")).toBeNull();
  });

  it("refuses in the documented order with the documented statuses", () => {
    const status = (path: string, devMode = true) => {
      const r = route(path, devMode);
      return r && isRouteRefusal(r) ? r.status : r ? "ok" : null;
    };
    expect(status("/rooms/agar/%E0%A4%A")).toBe(400);
    expect(status("/rooms/chess/r1")).toBe(404);
    expect(status("/rooms/constructor/r1")).toBe(404);
    expect(status("/rooms/agar/bad.id")).toBe(400);
    expect(status(`/rooms/agar/${"x".repeat(65)}`)).toBe(400);
    expect(status("/rooms/agar/r1/stats", false)).toBe(403);
    expect(status("/rooms/agar/r1/abort", false)).toBe(403);
    expect(status("/rooms/agar/r1?cap=5", false)).toBe(403);
    expect(status("/rooms/agar/r1?cap=0")).toBe(400);
    expect(status("/rooms/agar/r1?tickMs=33.5")).toBe(400);
    expect(status("/rooms/agar/r1?queueInputs=yes")).toBe(400);
    expect(status("/rooms/agar/r1?ticket=abc", false)).toBe("ok");
  });

  it("treats only its own keys as overrides (not inherited object keys)", () => {
    expect(parseRoomOverrides(new URLSearchParams("constructor=1&toString=2&cap=7"))).toEqual({ options: { cap: 7 }, params: {} });
    expect([...ROOM_OVERRIDE_KEYS].sort()).toEqual(
      ["aoi", "bots", "cap", "checkpointMs", "flushSliceClients", "idleFrameMs", "joinBurst", "joinRatePerSec", "keepSoonMs", "minStatsIntervalMs", "msgBurst", "msgRatePerSec", "queueInputs", "reconnectWindowMs", "relayAt", "relays", "syncIntervalMs", "tickMs", "world"].sort(),
    );
  });
});

describe("welcome in both dialects", () => {
  const fields = fc.record({
    version: fc.nat({ max: 0xffff }),
    playerId: fc.nat({ max: 0xffffffff }),
    token: fc.string({ maxLength: 64, unit: "grapheme-ascii" }),
    tickMs: fc.nat({ max: 0xffff }),
    syncIntervalMs: fc.nat({ max: 0xffff }),
    // JSON has no -0: it reads back as 0, which is the same time.
    serverTime: fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x + 0),
    roomEpoch: fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x + 0),
    reconnected: fc.boolean(),
    json: fc.boolean(),
    roomKind: fc.string({ maxLength: 32, unit: "grapheme-ascii" }),
    cap: fc.nat({ max: 0xffff }),
    schemaHash: fc.nat({ max: 0xffffffff }),
    lastSeq: fc.nat({ max: 0xffffffff }),
  });

  it("the JSON welcome carries exactly the binary welcome's fields (bar json and schemaHash), after a round trip each", () =>
    fc.assert(
      fc.property(fields, (f: WelcomeFields) => {
        const binary = decodeServerMessage(encodeWelcome(new BinaryWriter(), f).toBytes());
        const json = decodeJsonServerMessage(JSON.stringify(toJsonWelcome(f)));
        const { kind: _k, version, json: _j, schemaHash: _h, ...rest } = binary as WelcomeFields & { kind: string };
        expect(json).toEqual({ t: "welcome", v: version, ...rest });
      }),
    ));
});

describe("sendableCloseCode", () => {
  it("passes application and normal codes, answers reserved or out-of-range ones with 1000", () => {
    expect([1000, 1001, 4002, 4999].map(sendableCloseCode)).toEqual([1000, 1001, 4002, 4999]);
    expect([1004, 1005, 1006, 1015, 999, 5000].map(sendableCloseCode)).toEqual([1000, 1000, 1000, 1000, 1000, 1000]);
  });
});
