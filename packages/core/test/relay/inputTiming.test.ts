/**
 * When an input behind a relay is applied: a relay sends its clients' inputs in phase with the
 * simulation's tick, so an input reaches the tick a single room would apply it in, except one
 * that arrives within the relay's lead before that tick (it goes with the next batch), and the
 * relay sends the simulation at most one input message per tick. Where the simulation's
 * flushes reach the relay late, the lead grows until the batches make their ticks.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FakeClock, RoomOptions } from "../../src";
import type { MemoryPort } from "../../src/relay";
import { inputLeadMs } from "../../src/relay/inputPhase";
import { RelayedTestRoom, TestRoom, type TestClient } from "../../src/testing";
import { dotsDefinition, dotsSchema, dotsTypes, type DotsGame } from "../testing/games";

const TICK_MS = 50;
/** `RelayKind.Inputs`, the first byte of a relay's input batch. */
const INPUTS_KIND = 3;

type Client = TestClient<typeof dotsTypes>;

/** A single room and a relayed one on clocks that agree, and a client of each sending the same inputs at the same times. */
class Twins {
  readonly single: TestRoom<typeof dotsTypes>;
  readonly split: RelayedTestRoom<typeof dotsTypes, DotsGame, typeof dotsSchema.decl>;
  readonly t0: number;
  /** The two clients (single room's, relayed room's, on relay 1), once joined. */
  a!: Client;
  b!: Client;
  /** Each input's arrival, ms after t0. */
  readonly arrivals: number[] = [];
  /** When relay 1 sent an input batch, ms after t0. */
  readonly batches: number[] = [];

  /** @param overrides Both rooms' options over the game's defaults. */
  constructor(overrides: Partial<RoomOptions> = {}) {
    this.single = new TestRoom(dotsDefinition, dotsTypes, { overrides });
    this.split = new RelayedTestRoom<typeof dotsTypes, DotsGame, typeof dotsSchema.decl>(dotsDefinition, dotsTypes, { world: (g) => g.world, worldOptions: { tiers: [{ radius: 1000, every: 1 }] }, overrides });
    this.t0 = this.single.clock.now();
    expect(this.split.clock.now()).toBe(this.t0);
    // The first player starts both rooms' tick loops at t0: their ticks fall at the same times.
    this.single.join("a");
    this.split.join("a", { relay: 0 });
    const port = this.split.toSimulation[1]!;
    const send = port.send.bind(port);
    port.send = (data) => {
      if (data[0] === INPUTS_KIND) this.batches.push(this.split.clock.now() - this.t0);
      send(data);
    };
  }

  /** Opens the second client's sockets. */
  joinB(): void {
    this.a = this.single.join("b");
    this.b = this.split.join("b", { relay: 1 });
  }

  advance(ms: number): void {
    this.single.clock.advance(ms);
    this.split.clock.advance(ms);
  }

  input(): void {
    this.arrivals.push(this.split.clock.now() - this.t0);
    this.a.input({ dx: 1 });
    this.b.input({ dx: 1 });
  }

  /** The tick each input was applied in, from `from` on: [arrival, single room's tick, relayed room's]. */
  applied(from = 0): [number, number, number][] {
    this.advance(3 * TICK_MS);
    const out: [number, number, number][] = [];
    for (let seq = from + 1; seq <= this.arrivals.length; seq++) out.push([this.arrivals[seq - 1]!, appliedTick(this.a, seq), appliedTick(this.b, seq)]);
    return out;
  }

  /** Most batches relay 1 sent between two of the simulation's ticks, counting from `from` ms. */
  batchesPerTick(from: number): number {
    const perTick = new Map<number, number>();
    for (const at of this.batches) {
      if (at < from) continue;
      const tick = Math.floor(at / TICK_MS);
      perTick.set(tick, (perTick.get(tick) ?? 0) + 1);
    }
    return Math.max(0, ...perTick.values());
  }
}

/** The tick of the first frame that acks `seq`: the tick the input was applied in. */
function appliedTick(c: Client, seq: number): number {
  const frame = c.frames.find((f) => f.ackSeq >= seq);
  if (!frame) throw new Error(`input ${seq} never acked`);
  return frame.tick;
}

/**
 * The single room's tick `want` fell at `want·TICK_MS`: an input that came within `lead` before
 * it may be applied one tick later, never more, never earlier. Acks come with flushes, so the
 * ticks read off frames are flush ticks, `flushEvery` apart.
 */
function expectOnTime([at, want, got]: [number, number, number], lead: number, flushEvery = 1): void {
  const withinLead = want * TICK_MS - at <= lead;
  expect(got === want || (withinLead && got === want + flushEvery), `input at ${at} ms: acked at tick ${got}, single room ${want}`).toBe(true);
}

/** Delivers what `port` carries `ms` after it is sent (a slower link, or a relay whose thread is busy). */
function delay(port: MemoryPort, clock: FakeClock, ms: number): void {
  port.immediate = false;
  const send = port.send.bind(port);
  port.send = (data) => {
    send(data);
    clock.setTimer(() => port.deliver(), ms);
  };
}

const gapsArb = fc.array(fc.integer({ min: 0, max: 240 }).map((x) => x / 2), { minLength: 5, maxLength: 40 });

describe("a relay's input batch in phase with the simulation's tick", () => {
  it("an input is applied in the tick a single room applies it in, but within the lead before it; at most one batch per tick", () => {
    const lead = inputLeadMs(TICK_MS);
    let late = 0;
    let inputs = 0;
    fc.assert(
      fc.property(
        // When the relayed client's socket opens, after the room's first player (the relay's
        // old timer took its phase from there), and when its inputs arrive (half-ms steps).
        fc.integer({ min: 0, max: 400 }).map((x) => x / 2),
        gapsArb,
        (openAt, gaps) => {
          const t = new Twins();
          t.advance(openAt);
          t.joinB();
          for (const gap of gaps) {
            t.advance(gap);
            t.input();
          }
          for (const row of t.applied()) {
            expectOnTime(row, lead);
            inputs++;
            if (row[1] !== row[2]) late++;
          }
          // Once the relay heard a flush (the first, of tick 1; before it, a batch goes in the
          // task after its first input arrived).
          expect(t.batchesPerTick(TICK_MS)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 150 },
    );
    // About lead / TICK_MS of the inputs land in the lead and go a tick later; the rest on time.
    expect(inputs).toBeGreaterThan(1000);
    expect(late / inputs).toBeLessThan(0.2);
  });

  it("a flush every other tick: the same, and the lead stays the least (a batch acked by a later flush says nothing)", () =>
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }).map((x) => x / 2), gapsArb, (openAt, gaps) => {
        const t = new Twins({ syncIntervalMs: 2 * TICK_MS });
        t.advance(openAt);
        t.joinB();
        for (const gap of gaps) {
          t.advance(gap);
          t.input();
        }
        // The single room's and the relayed room's flushes fall on the same ticks.
        for (const row of t.applied()) expectOnTime(row, inputLeadMs(TICK_MS), 2);
        expect(t.split.relays[1]!.inputLeadMs).toBe(inputLeadMs(TICK_MS));
        expect(t.batchesPerTick(2 * TICK_MS)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 60 },
    ));

  it("inputs applied on arrival (queueInputs off) are acked outside the flush: the lead is left alone", () => {
    const t = new Twins({ queueInputs: false });
    t.joinB();
    t.advance(TICK_MS);
    for (let i = 0; i < 100; i++) {
      t.input();
      t.advance(17);
    }
    t.advance(TICK_MS);
    expect(t.b.ackSeq).toBe(100);
    expect(t.split.relays[1]!.inputLeadMs).toBe(inputLeadMs(TICK_MS));
  });

  it("flushes that reach the relay late: its lead grows until its batches make their ticks, then the same holds", () =>
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 20 }), gapsArb, (lateBy, gaps) => {
        const t = new Twins();
        delay(t.split.toRelay[1]!, t.split.clock, lateBy);
        t.joinB();
        t.advance(TICK_MS);
        // Two seconds of an input every 20 ms: the first batches miss, and the lead grows.
        for (let i = 0; i < 100; i++) {
          t.input();
          t.advance(20);
        }
        const relay = t.split.relays[1]!;
        const lead = relay.inputLeadMs;
        expect(lead).toBeGreaterThan(lateBy);
        expect(lead).toBeLessThanOrEqual(lateBy + 2);
        const from = t.arrivals.length;
        const since = t.split.clock.now() - t.t0;
        for (const gap of gaps) {
          t.advance(gap);
          t.input();
        }
        for (const row of t.applied(from)) expectOnTime(row, lead);
        expect(relay.inputLeadMs).toBe(lead);
        expect(t.batchesPerTick(since)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 60 },
    ));
});
