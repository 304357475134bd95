/**
 * A relayed room's `tk:stats`: each relay reports its counters to the simulation once a second
 * (RelayKind.Report), and the snapshot a client gets carries them apart (`relays`) and summed in
 * the fields a single room has, with the simulation's own under `simulation`.
 */
import { BinaryReader, BinaryWriter, FrameWriter, encodeStatsRequest } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BusyMeter, DurationStats, type RoomStatsSnapshot } from "../../src";
import { RoomStats } from "../../src/roomStats";
import { RELAY_REPORT_MS, acrossRelays, relayedStats, type RelayedStatsSnapshot, type RelayStatsReport } from "../../src/relay";
import { readRelayReport, writeRelayReport } from "../../src/relay/relayReport";
import { RelayKind } from "../../src/relay/relayWire";
import { RelayedTestRoom } from "../../src/testing";
import { DotsGame, dotsDefinition, dotsSchema, dotsTypes } from "../testing/games";

const worldOptions = { tiers: [{ radius: 1000, every: 1 }] };
const relayed = () => new RelayedTestRoom<typeof dotsTypes, DotsGame, typeof dotsSchema.decl>(dotsDefinition, dotsTypes, { relays: 2, world: (g) => g.world, worldOptions });

describe("a relayed room's tk:stats", () => {
  it("sums the relays' frames, bytes and messages, keeps each relay apart, and the simulation's own", () => {
    const room = relayed();
    const ann = room.join("ann", { relay: 0 });
    const bob = room.join("bob", { relay: 1 });
    const cid = room.join("cid", { relay: 1 });
    // No report yet: no relay counted, the simulation's own counts stand apart.
    expect(room.stats().relays).toEqual([]);
    for (let i = 0; i < 30; i++) {
      ann.input({ dx: 1 });
      bob.input({ dx: -1 });
      cid.input({ dx: 1 });
      room.advance(50);
    }
    // 1.5 s: each relay reported on its first tick and a second later.
    const s = room.stats();
    expect(s.relays.map((r) => [r.index, r.sockets, r.seated])).toEqual([
      [0, 1, 1],
      [1, 2, 2],
    ]);
    for (const r of s.relays) expect(r.ageMs).toBeLessThan(RELAY_REPORT_MS);
    // The reports are the relays' counters as they were at the report.
    const [r0, r1] = s.relays as [RelayStatsReport, RelayStatsReport];
    expect(r0.frames).toBeGreaterThan(0);
    expect(r1.frames).toBeGreaterThan(r0.frames);
    expect(r0.frames).toBeLessThanOrEqual(room.relays[0]!.stats.frames);
    expect(s.frames).toBe(r0.frames + r1.frames);
    expect(s.bytesOut).toBe(r0.bytesOut + r1.bytesOut);
    expect(s.messagesIn).toBe(r0.messagesIn + r1.messagesIn);
    expect(s.acks).toBe(r0.acks + r1.acks);
    expect(s.flush.count).toBe(r0.flush.count + r1.flush.count);
    expect(s.flush.max).toBe(Math.max(r0.flush.max, r1.flush.max));
    // The simulation sends no frames itself; it saw only the messages the relays forwarded.
    expect(s.simulation.frames).toBe(0);
    expect(s.simulation.messagesIn).toBe(3); // the three hellos
    expect(s.messagesIn).toBeGreaterThan(60); // hellos and a second of inputs, at the relays' sockets
    // The room's own figures stay the simulation's.
    expect(s).toMatchObject({ ccu: 3, seats: 3 });
    expect(s.inputs.processed).toBe(90);

    // A client's own tk:stats request gets the same, through its relay.
    ann.sendRaw(encodeStatsRequest(new BinaryWriter(), 7).toBytes());
    room.advance(50);
    const reply = ann.messages.findLast((m) => m.kind === "stats") as { stats: RelayedStatsSnapshot } | undefined;
    expect(reply?.stats.relays.map((r) => r.index)).toEqual([0, 1]);
    expect(reply?.stats.frames).toBe(reply!.stats.relays[0]!.frames + reply!.stats.relays[1]!.frames);
  });

  it("reports go on once a second and stop when the relay is disposed; a gone relay leaves the sums", () => {
    const room = relayed();
    room.join("ann", { relay: 0 });
    room.join("bob", { relay: 1 });
    const before = room.toSimulation.map((p) => p.messages);
    room.advance(RELAY_REPORT_MS * 3);
    // Three reports each (the idle relays send no inputs: nothing else goes up).
    expect(room.toSimulation.map((p, i) => p.messages - before[i]!)).toEqual([3, 3]);
    room.relays[1]!.dispose(1001, "going away");
    const sent = room.toSimulation[1]!.messages;
    room.advance(RELAY_REPORT_MS * 3);
    // Its clients' closes went up; no report after.
    expect(room.toSimulation[1]!.messages).toBe(sent);
    room.simulation.disconnectRelay(room.toRelay[1]!);
    expect(room.stats().relays.map((r) => r.index)).toEqual([0]);
  });

  it("a relay whose last socket left reports once more, so its last report says it is empty", () => {
    const room = relayed();
    const ann = room.join("ann", { relay: 0 });
    room.join("bob", { relay: 1 });
    room.advance(RELAY_REPORT_MS / 2);
    ann.leave();
    room.advance(100);
    const s = room.stats();
    expect(s.relays.map((r) => [r.index, r.sockets, r.seated])).toEqual([
      [0, 0, 0],
      [1, 1, 1],
    ]);
  });

  it("a bad report is counted and dropped, and the room goes on", () => {
    const room = relayed();
    const ann = room.join("ann", { relay: 0 });
    room.toSimulation[0]!.send(new Uint8Array([RelayKind.Report, 0, 1, 2]));
    const nan = writeRelayReport(new FrameWriter(), { index: 0, sockets: 1, seated: 1, stats: new RoomStats() });
    const bytes = nan.toBytes();
    bytes.fill(0xff, 2, 10); // the first count: a NaN
    room.toSimulation[0]!.send(bytes);
    expect(room.stats().errors.relay_bad_message).toBe(2);
    ann.input({ dx: 1 });
    room.advance(50);
    expect(ann.ackSeq).toBe(1);
  });
});

describe("the relay report", () => {
  it("reads back what was written", () => {
    const stats = new RoomStats();
    stats.frames = 12;
    stats.bytesOut = 5e9; // past 32 bits: counts go as f64
    stats.acks = 3;
    stats.refused.join_throttled = 2;
    stats.errors.bad_frame = 1;
    for (const ms of [0.2, 1.5, 7]) stats.flush.record(ms);
    stats.flushSlice.record(0.5);
    let t = 0;
    const busy = new BusyMeter(() => t);
    busy.run(() => (t += 40));
    t += 60;
    const w = writeRelayReport(new FrameWriter(), { index: 3, sockets: 5, seated: 4, stats, busy: busy.reading() });
    const r = new BinaryReader(w.toBytes());
    expect(r.u8()).toBe(RelayKind.Report);
    expect(readRelayReport(r)).toEqual({
      index: 3,
      ageMs: 0,
      sockets: 5,
      seated: 4,
      flushes: 0,
      frames: 12,
      framesSkipped: 0,
      idleFrames: 0,
      acks: 3,
      bytesOut: 5e9,
      bytesIn: 0,
      messagesIn: 0,
      flush: stats.flush.summary(),
      flushSlice: stats.flushSlice.summary(),
      refused: { join_throttled: 2 },
      errors: { bad_frame: 1 },
      busy: { ms: 40, share: 0.4, windowMs: 10_000 },
    });
  });

  it("refuses a counter named __proto__", () => {
    const w = new FrameWriter();
    writeRelayReport(w, { index: 0, sockets: 0, seated: 0, stats: Object.assign(new RoomStats(), { refused: JSON.parse('{"__proto__": 1}') }) });
    const r = new BinaryReader(w.toBytes());
    r.u8();
    expect(() => readRelayReport(r)).toThrow(/__proto__/);
  });

  it("flush summaries across relays: counts and histograms summed, max and percentiles the worst, the mean weighted (property)", () => {
    const durations = fc.array(fc.array(fc.double({ min: 0, max: 200, noNaN: true }), { maxLength: 40 }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(durations, (relays) => {
        const parts = relays.map((ds) => {
          const d = new DurationStats();
          for (const ms of ds) d.record(ms);
          return d.summary();
        });
        const all = new DurationStats();
        for (const ds of relays) for (const ms of ds) all.record(ms);
        const one = all.summary();
        const got = acrossRelays(parts);
        // The naive twin: every flush recorded in one place.
        expect(got.count).toBe(one.count);
        expect(got.max).toBe(one.max);
        expect(got.histogram.counts).toEqual(one.histogram.counts);
        expect(got.mean).toBeCloseTo(one.mean, 2);
        // The worst relay's p99 bounds the p99 of every flush together from above.
        expect(got.p99).toBeGreaterThanOrEqual(one.p99);
        expect(got.p99).toBe(Math.max(...parts.map((p) => p.p99)));
      }),
    );
  });

  it("a snapshot without reports keeps the simulation's refusals and errors, and counts no relay", () => {
    const sim = { frames: 4, bytesOut: 9, refused: { banned: 1 }, errors: { internal: 2 }, flush: new DurationStats().summary(), flushSlice: new DurationStats().summary() } as unknown as RoomStatsSnapshot;
    const s = relayedStats(sim, []);
    expect(s).toMatchObject({ frames: 0, bytesOut: 0, refused: { banned: 1 }, errors: { internal: 2 }, relays: [], simulation: { frames: 4, bytesOut: 9 } });
  });
});
