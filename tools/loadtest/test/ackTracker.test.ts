import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AckOutcome, AckTracker, type AckSink } from "../src/metrics/ackTracker";

class Sink implements AckSink {
  rtts: number[] = [];
  spikes = 0;
  ackRtt(ms: number): void {
    this.rtts.push(ms);
  }
  ackSpike(): void {
    this.spikes++;
  }
}

describe("AckTracker", () => {
  it("an ack of the highest seq resolves every lower outstanding input, RTT from scheduled time", () => {
    const t = new AckTracker(1);
    const s = new Sink();
    // Scheduled at 0, 50, 100; actually sent later (irrelevant to RTT).
    expect(t.track(0)).toBe(1);
    expect(t.track(50)).toBe(2);
    expect(t.track(100)).toBe(3);
    expect(t.resolve(2, 130, s)).toBe(AckOutcome.Resolved);
    expect(s.rtts).toEqual([130, 80]);
    expect(t.outstanding).toBe(1);
    expect(t.resolve(3, 160, s)).toBe(AckOutcome.Resolved);
    expect(s.rtts).toEqual([130, 80, 60]);
    expect(t.outstanding).toBe(0);
  });

  it("repeats are duplicates, lower acks are regressions, and neither records anything", () => {
    const t = new AckTracker(1);
    const s = new Sink();
    t.track(0);
    t.track(10);
    t.resolve(2, 20, s);
    expect(t.resolve(2, 30, s)).toBe(AckOutcome.Duplicate);
    expect(t.resolve(1, 40, s)).toBe(AckOutcome.Regression);
    expect(s.rtts).toHaveLength(2);
  });

  it("an ack beyond the last sent seq resolves what was sent and is counted", () => {
    const t = new AckTracker(1);
    const s = new Sink();
    t.track(0);
    t.resolve(5, 10, s);
    expect(s.rtts).toEqual([10]);
    expect(t.ackBeyondSent).toBe(1);
    expect(t.outstanding).toBe(0);
    expect(t.track(20)).toBe(2);
  });

  it("starts after welcome.lastSeq", () => {
    const t = new AckTracker(42);
    expect(t.track(0)).toBe(42);
  });

  it("one spike per ack whose oldest input waited more than 1 s", () => {
    const t = new AckTracker(1);
    const s = new Sink();
    for (let i = 0; i < 30; i++) t.track(i * 50); // 0..1450
    t.resolve(30, 2000, s); // oldest RTT 2000 ms, newest 550 ms: one stall
    expect(s.spikes).toBe(1);
    t.track(2000);
    t.resolve(31, 2999, s); // 999 ms: not a spike
    expect(s.spikes).toBe(1);
    t.track(3000);
    t.resolve(32, 4000.5, s); // 1000.5 ms
    expect(s.spikes).toBe(2);
  });

  it("grows past its initial capacity without losing scheduled times", () => {
    const t = new AckTracker(1, 4);
    const s = new Sink();
    for (let i = 0; i < 1000; i++) t.track(i);
    t.resolve(1000, 2000, s);
    expect(s.rtts).toHaveLength(1000);
    expect(s.rtts[0]).toBe(2000);
    expect(s.rtts[999]).toBe(1001);
    expect(t.untracked).toBe(0);
  });

  it("matches a naive model for any interleaving of sends and acks", () => {
    type Op = { kind: "send" } | { kind: "ack"; back: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.constant<Op>({ kind: "send" }),
      fc.integer({ min: -2, max: 5 }).map<Op>((back) => ({ kind: "ack", back })),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const t = new AckTracker(1, 2);
        const s = new Sink();
        const model: { seq: number; at: number }[] = [];
        const expected: number[] = [];
        let now = 0;
        let lastSent = 0;
        let lastAck = 0;
        for (const o of ops) {
          now += 7;
          if (o.kind === "send") {
            lastSent = t.track(now);
            model.push({ seq: lastSent, at: now });
          } else {
            const ack = Math.max(0, lastSent - o.back);
            if (ack < lastAck) continue;
            lastAck = ack;
            while (model.length && model[0].seq <= ack) expected.push(now - model.shift()!.at);
            t.resolve(ack, now, s);
          }
        }
        expect(s.rtts).toEqual(expected);
        expect(t.outstanding).toBe(model.length);
      }),
    );
  });
});
