/**
 * The match log's codec against its naive twin, the list of calls a room made: whatever a room
 * tells its `LogRecorder` (random calls at random times, whole or fractional ms), `MatchLog`
 * reads back the same records in the same order with the same times; cut anywhere, it reads the
 * records that were whole; the pieces handed to the sink are the log; tokens never reach it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Game } from "../../src/game";
import { LogRecorder, MatchLog, RecordKind, type MatchRecord, type MatchSummary } from "../../src/replay/index";

type Call =
  | { c: "tick"; k: number }
  | { c: "slice" | "deferred" }
  | { c: "join"; id: number; name: string; identity: string; bound: boolean; claims: Record<string, string | number>; options: Record<string, string | boolean>; bot: boolean }
  | { c: "reconnect" | "disconnect" | "leave"; id: number }
  | { c: "inputs"; id: number; inputs: { seq: number; payload: Uint8Array }[] }
  | { c: "message"; id: number; type: string; json: string }
  | { c: "flushed" };

const id = fc.integer({ min: 1, max: 5000 });
const call: fc.Arbitrary<Call> = fc.oneof(
  fc.record({ c: fc.constant("tick" as const), k: fc.nat({ max: 1e6 }) }),
  fc.record({ c: fc.constantFrom("slice" as const, "deferred" as const) }),
  fc.record({
    c: fc.constant("join" as const),
    id,
    name: fc.string({ maxLength: 8 }),
    identity: fc.string({ maxLength: 24 }),
    bound: fc.boolean(),
    claims: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer())),
    options: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 5 }), fc.boolean())),
    bot: fc.boolean(),
  }),
  fc.record({ c: fc.constantFrom("reconnect" as const, "disconnect" as const, "leave" as const), id }),
  fc.record({ c: fc.constant("inputs" as const), id, inputs: fc.array(fc.record({ seq: fc.nat({ max: 2 ** 31 }), payload: fc.uint8Array({ maxLength: 20 }) }), { maxLength: 4 }) }),
  fc.record({ c: fc.constant("message" as const), id, type: fc.string({ maxLength: 6 }), json: fc.json({ maxDepth: 1 }) }),
  fc.record({ c: fc.constant("flushed" as const) }),
);
/** Time between two calls: none, whole ms, or a fraction (a clock with sub-ms time). */
const step = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 0.001, max: 50, noNaN: true }));

const EPOCH = 1_700_000_000_000;
const game = { sync: { mode: "binary", encoder: { digest: () => 0xdeadbeef } } } as unknown as Game;

function record(calls: [Call, number][]): { pieces: Uint8Array[]; summary: MatchSummary | null; expected: Partial<MatchRecord>[] } {
  const pieces: Uint8Array[] = [];
  let summary: MatchSummary | null = null;
  const recorder = new LogRecorder(
    { kind: "agar", roomId: "r1", seed: 42, options: "{}", params: "{}", store: "", listing: "" },
    { chunk: (_id, index, bytes) => void (pieces[index] = bytes.slice()), end: (s) => void (summary = s) },
    { checkpointEveryMs: 0 },
  );
  recorder.begin({ epoch: EPOCH, game, framesSent: true, checkpoint: () => ({ seats: [{ playerId: 1, token: "secret-token" }], savedAt: 123 }) });
  const expected: Partial<MatchRecord>[] = [];
  let now = EPOCH;
  let checkpointed = false;
  for (const [c, dt] of calls) {
    now += dt;
    const time = now - EPOCH;
    switch (c.c) {
      case "tick":
        recorder.tick(c.k, now);
        expected.push({ kind: RecordKind.Tick, time, tick: c.k });
        break;
      case "slice":
        recorder.slice(now);
        expected.push({ kind: RecordKind.Slice, time });
        break;
      case "deferred":
        recorder.deferred(now);
        expected.push({ kind: RecordKind.Deferred, time });
        break;
      case "join":
        recorder.joined({ playerId: c.id, name: c.name, identity: c.identity, claims: c.claims, options: c.options }, c.bound, c.bot, now);
        expected.push({ kind: RecordKind.Join, time, playerId: c.id, name: c.name, identity: c.identity, bound: c.bound, claims: JSON.stringify(c.claims), options: JSON.stringify(c.options), bot: c.bot });
        break;
      case "reconnect":
        recorder.reconnected(c.id, now);
        expected.push({ kind: RecordKind.Reconnect, time, playerId: c.id });
        break;
      case "disconnect":
        recorder.disconnected(c.id, now);
        expected.push({ kind: RecordKind.Disconnect, time, playerId: c.id });
        break;
      case "leave":
        recorder.left(c.id, now);
        expected.push({ kind: RecordKind.Leave, time, playerId: c.id });
        break;
      case "inputs":
        recorder.inputs(c.id, c.inputs, c.inputs.length, now);
        expected.push({ kind: RecordKind.Inputs, time, playerId: c.id, inputs: c.inputs });
        break;
      case "message":
        recorder.message(c.id, c.type, c.json, now);
        expected.push({ kind: RecordKind.Message, time, playerId: c.id, type: c.type, json: c.json });
        break;
      case "flushed":
        recorder.sent(1, new Uint8Array([1, 2, 3]));
        recorder.flushed(now);
        expected.push({ kind: RecordKind.Flushed, time, world: 0xdeadbeef });
        if (!checkpointed) expected.push({ kind: RecordKind.Checkpoint, time });
        checkpointed = true;
        break;
    }
  }
  recorder.ended("disposed", now);
  expected.push({ kind: RecordKind.End, time: now - EPOCH, reason: "disposed" });
  return { pieces, summary, expected };
}

function joined(pieces: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("the match log", () => {
  it("reads back every record the recorder was told, in order, at its time (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(call, step), { maxLength: 60 }), (calls) => {
        const { pieces, summary, expected } = record(calls);
        const bytes = joined(pieces);
        const log = new MatchLog(bytes);
        expect(log.header).toMatchObject({ kind: "agar", roomId: "r1", seed: 42, startedAt: EPOCH });
        expect(log.count).toBe(expected.length);
        for (let i = 0; i < log.count; i++) {
          const r = log.record(i);
          expect(r.time).toBeCloseTo(expected[i]!.time!, 9);
          expect(r).toMatchObject({ ...expected[i], time: r.time });
          if (r.kind === RecordKind.Checkpoint) expect(r.json).not.toContain("secret-token");
        }
        expect(summary).toMatchObject({ kind: "agar", roomId: "r1", startedAt: EPOCH, bytes: bytes.length, reason: "disposed" });
      }),
      { numRuns: 200 },
    );
  });

  it("cut anywhere, reads the records that were whole (a crash between two writes)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(call, step), { minLength: 1, maxLength: 30 }), fc.double({ min: 0, max: 1, noNaN: true }), (calls, where) => {
        const bytes = joined(record(calls).pieces);
        const whole = new MatchLog(bytes);
        const headerEnd = bytes.length - [...Array(whole.count).keys()].reduce((n, i) => n + whole.recordBytes(i).length, 0);
        const cut = headerEnd + Math.floor((bytes.length - headerEnd) * where);
        const log = new MatchLog(bytes.subarray(0, cut));
        let ends = headerEnd;
        let n = 0;
        while (n < whole.count && ends + whole.recordBytes(n).length <= cut) ends += whole.recordBytes(n++).length;
        expect(log.count).toBe(n);
        for (let i = 0; i < n; i++) expect(log.recordBytes(i)).toEqual(whole.recordBytes(i));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses bytes that are not a match log", () => {
    expect(() => new MatchLog(new Uint8Array([1, 2, 3, 4, 5]))).toThrow(/not a match log/);
  });
});
