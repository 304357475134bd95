/**
 * Each room object's own time (tk:stats `busy`, and a relayed room's `relays[].busy`) read into
 * the summary, its text and the A/B figures: the simulation apart from its relays, summed.
 */
import { describe, expect, it } from "vitest";
import { runFigures } from "../src/ab/abStats";
import { capacityTable } from "../src/capacity/capacityReport";
import { pointFrom } from "../src/capacity/capacityResult";
import { busyPct, relayCount, relaysBusyPct } from "../src/metrics/tkStats";
import { formatSummary, ownTime } from "../src/report/summaryText";
import { report, room } from "./fixtures";

const single = { busy: { ms: 5000, share: 0.4321, windowMs: 10_000 } };
const relayed = {
  busy: { ms: 900, share: 0.12, windowMs: 10_000 },
  relays: [
    { index: 0, busy: { ms: 1500, share: 0.2, windowMs: 10_000 } },
    { index: 1, busy: { ms: 1700, share: 0.2255, windowMs: 10_000 } },
  ],
};

function withStats(id: string, stats: unknown) {
  const r = room(id, { acks: [5], gaps: [50] });
  r.tkStats = { stats, fetchedAt: 1 };
  r.tkStatsError = null;
  return r;
}

describe("the room objects' own time", () => {
  it("reads the object's share, and a relayed room's relays summed apart", () => {
    expect(busyPct(single)).toBe(43.21);
    expect(relaysBusyPct(single)).toBeNull();
    expect(relayCount(single)).toBe(0);
    expect(busyPct(relayed)).toBe(12);
    expect(relaysBusyPct(relayed)).toBe(42.55);
    expect(relayCount(relayed)).toBe(2);
    // A server that does not meter: missing, never guessed.
    expect(busyPct({ flush: { p99: 1 } })).toBeNull();
    expect(relaysBusyPct({ relays: [{ index: 0 }, relayed.relays[0]] })).toBeNull();
  });

  it("the summary and the A/B figures carry them: the simulation against the single room", () => {
    const a = report([withStats("t-0", single)]);
    const b = report([withStats("t-0", relayed)]);
    expect(a.summary.roomStats).toMatchObject({ busyPct: 43.21, relaysBusyPct: null, relays: 0 });
    expect(b.summary.roomStats).toMatchObject({ busyPct: 12, relaysBusyPct: 42.55, relays: 2 });
    expect(runFigures(a)).toMatchObject({ roomBusyPct: 43.21, relaysBusyPct: null });
    expect(runFigures(b)).toMatchObject({ roomBusyPct: 12, relaysBusyPct: 42.55 });
    expect(formatSummary(b)).toContain("simulation 12%, 2 relays 42.55% summed");
    expect(formatSummary(a)).toContain("43.21% of a thread");
    expect(ownTime({ busyPct: null })).toMatch(/n\/a/);
  });

  it("a capacity point carries them, and its table shows the relays' sum after the simulation's", () => {
    const p = pointFrom(300, report([withStats("t-0", relayed)]));
    expect(p).toMatchObject({ ownTimePct: 12, relaysOwnTimePct: 42.55 });
    expect(capacityTable([p], false)).toContain("12 (+42.55 relays)");
    expect(capacityTable([pointFrom(300, report([withStats("t-0", single)]))], false)).toMatch(/own time %[\s\S]*\b43\.21\b/);
  });

  it("of several rooms, the busiest room's", () => {
    const r = report([withStats("t-0", single), withStats("t-1", { busy: { ms: 1, share: 0.5, windowMs: 10_000 } })]);
    expect(r.summary.roomStats.busyPct).toBe(50);
  });
});
