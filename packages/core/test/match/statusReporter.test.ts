/**
 * A room's reports to its matchmaker (`StatusReporter`): one in flight, changes coalesced, no
 * report of what the matchmaker already holds, refreshes whatever it holds.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src";
import { StatusReporter, type RoomStatus } from "../../src/match";

function status(changes: number, clients = 1, refreshMs = 0): RoomStatus {
  return { roomId: "r1", clients, bots: 0, reserved: 0, maxClients: 8, metadata: {}, locked: false, private: false, createdAt: 5, version: [5, changes], overrides: "", refreshMs };
}

function setup(coalesceMs: number, refreshMs = 0) {
  const clock = new FakeClock();
  let now = status(0, 1, refreshMs);
  const sent: number[] = [];
  const answers: (() => void)[] = [];
  const reporter = new StatusReporter({
    current: () => now,
    send: (s) => {
      sent.push(s.version[1]);
      return new Promise<void>((r) => answers.push(r));
    },
    clock,
    coalesceMs,
  });
  const change = () => {
    now = status(now.version[1] + 1, now.clients, refreshMs);
    reporter.changed();
  };
  const answer = async () => {
    answers.shift()?.();
    await Promise.resolve();
    await Promise.resolve();
  };
  return { clock, reporter, sent, change, answer, current: () => now };
}

describe("StatusReporter", () => {
  it("sends a burst of changes as one report after the coalescing, and one more for changes while it travels", async () => {
    const r = setup(100);
    r.change();
    r.clock.advance(50);
    r.change();
    r.change();
    expect(r.sent).toEqual([]);
    r.clock.advance(50);
    expect(r.sent).toEqual([3]);
    r.change();
    r.change();
    r.clock.advance(500);
    // One in flight at a time.
    expect(r.sent).toEqual([3]);
    await r.answer();
    r.clock.advance(100);
    expect(r.sent).toEqual([3, 5]);
    expect(r.reporter.sent).toBe(2);
  });

  it("sends at once without coalescing", () => {
    const r = setup(0);
    r.change();
    expect(r.sent).toEqual([1]);
  });

  it("sends nothing the matchmaker was told already (a seat request's answer), and again once the status moves on", () => {
    const r = setup(100);
    r.change();
    r.reporter.told(r.current().version);
    r.clock.advance(100);
    expect(r.sent).toEqual([]);
    r.change();
    r.clock.advance(100);
    expect(r.sent).toEqual([2]);
  });

  it("refreshes every refreshMs while seated, even a status the matchmaker holds, and stops when stopped", async () => {
    const r = setup(100, 60_000);
    r.change();
    r.clock.advance(100);
    await r.answer();
    expect(r.sent).toEqual([1]);
    r.clock.advance(60_000);
    expect(r.sent).toEqual([1, 1]);
    await r.answer();
    r.reporter.stop();
    r.change();
    r.clock.advance(120_000);
    expect(r.sent).toEqual([1, 1]);
  });

  it("sends again after a report failed", async () => {
    const clock = new FakeClock();
    const sent: number[] = [];
    let fail = true;
    const errors: unknown[] = [];
    const rep = new StatusReporter({
      current: () => status(1),
      send: (s) => {
        sent.push(s.version[1]);
        return fail ? Promise.reject(new Error("down")) : Promise.resolve();
      },
      clock,
      coalesceMs: 10,
      onError: (e) => errors.push(e),
    });
    rep.changed();
    clock.advance(10);
    await Promise.resolve();
    await Promise.resolve();
    fail = false;
    rep.changed();
    clock.advance(10);
    expect(sent).toEqual([1, 1]);
    expect(errors).toHaveLength(1);
  });
});
