/**
 * Spectators (core/src/spectate): no seat, inputs refused and counted, their own cap, a delay,
 * follow switching, and one encode per watched target whose shared frames decode, for every
 * spectator, to what a spectator given its own keyframe at that flush decodes.
 */
import { CloseCode, ErrorCode, binaryDialect, type SpectateTarget } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RelayedTestRoom, TestRoom } from "../../src/testing";
import { type FieldGame, fieldDefinition, fieldSchema, fieldTypes, fieldWorldOptions } from "../relay/fieldGame";
import { Watcher } from "./watcher";

const FLUSH = 50;

function fieldRoom(overrides = {}) {
  return new TestRoom<typeof fieldTypes, FieldGame>(fieldDefinition(7), fieldTypes, { overrides });
}

function watcher(room: TestRoom<typeof fieldTypes, FieldGame>, target: SpectateTarget | null, delaySec = 0): Watcher {
  return new Watcher(room.room, fieldSchema).open({ target, delaySec });
}

describe("spectators", () => {
  it("watch without a seat, apart from the cap, and see what a player's viewer sees", () => {
    const room = fieldRoom({ cap: 1 });
    const ann = room.join("ann");
    const w = watcher(room, { player: ann.playerId });
    room.advance(FLUSH * 4);
    expect(w.welcomes).toBe(1);
    expect(w.messages[0]).toMatchObject({ kind: "welcome", playerId: 0, token: "", roomKind: "field" });
    expect(room.stats().seats).toBe(1);
    // The spectator's view holds the entities in the player's view (one tier: every one refreshed).
    expect(Object.keys(w.entities()).sort()).toEqual([...ann.state.values()].map((e) => String(e.id)).sort());
    expect(w.view.size).toBeGreaterThan(0);
    const s = room.stats().spectators!;
    expect(s).toMatchObject({ connected: 1, lanes: 1, groups: 1 });
  });

  it("refuses inputs and seat-only messages with `spectating`, counted in tk:stats", () => {
    const room = fieldRoom();
    room.join("ann");
    const w = watcher(room, null);
    room.advance(FLUSH * 2);
    w.say(binaryDialect.input(1, new Uint8Array([1])) as Uint8Array);
    w.say(binaryDialect.input(2, new Uint8Array([1])) as Uint8Array);
    const errors = w.messages.filter((m) => m.kind === "error");
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ code: ErrorCode.spectating });
    const stats = room.stats();
    expect(stats.errors.spectating).toBe(2);
    expect(stats.spectators!.refused).toBe(2);
    expect(stats.inputs.received).toBe(0);
    expect(w.closed).toBeNull();
  });

  it("holds its own cap: one more is refused with spectators_full, counted", () => {
    const room = fieldRoom({ maxSpectators: 2 });
    room.join("ann");
    watcher(room, null);
    watcher(room, null);
    const third = watcher(room, null);
    expect(third.id).toBe(-1);
    expect(third.closed?.code).toBe(CloseCode.spectators_full);
    expect(room.stats().refused.spectators_full).toBe(1);
    expect(room.stats().spectators!.refusedFull).toBe(1);
  });

  it("sees the match D seconds late: what a live spectator saw D seconds before", () => {
    const room = fieldRoom();
    const ann = room.join("ann");
    const live = watcher(room, { player: ann.playerId });
    const late = watcher(room, { player: ann.playerId }, 1);
    room.advance(FLUSH * 2);
    const seen: Record<number, string>[] = [];
    for (let i = 0; i < 40; i++) {
      ann.input({ dir: ((i % 4) + 1) as 1 });
      room.advance(FLUSH);
      seen.push(live.entities());
    }
    expect(late.frames).toBeGreaterThan(0);
    // Flush i's state reaches the late spectator 1000 ms (20 flushes) after the live one.
    expect(late.entities()).toEqual(seen[seen.length - 1 - 1000 / FLUSH]);
    expect(late.entities()).not.toEqual(live.entities());
    // Its frames' times are shifted by the delay: they read as on time on its clock.
    const lastLate = late.messages.filter((m) => m.kind === "frame").at(-1) as { time: number };
    expect(lastLate.time).toBeGreaterThanOrEqual(room.time - FLUSH);
  });

  it("a game kind's least delay holds whatever the spectator asks", () => {
    const room = fieldRoom({ spectateMinDelaySec: 2 });
    room.join("ann");
    const w = watcher(room, null, 0);
    room.advance(1900);
    expect(w.frames).toBe(0);
    room.advance(300);
    expect(w.frames).toBeGreaterThan(0);
  });

  it("switches target while watching: a reply, a second welcome, then the new target's view", () => {
    const room = fieldRoom();
    const ann = room.join("ann");
    const bob = room.join("bob");
    const w = watcher(room, { player: ann.playerId });
    room.advance(FLUSH * 3);
    w.follow({ player: bob.playerId }, 9);
    expect(w.messages.at(-1)).toMatchObject({ kind: "reply", requestId: 9 });
    room.advance(FLUSH * 2);
    expect(w.welcomes).toBe(2);
    expect(Object.keys(w.entities()).sort()).toEqual([...bob.state.values()].map((e) => String(e.id)).sort());
    w.follow({ x: "no" }, 10);
    expect(w.messages.at(-1)).toMatchObject({ kind: "reply", requestId: 10, code: ErrorCode.spectating });
  });

  it("encodes once per target per flush, whatever the number of spectators", () => {
    const room = fieldRoom();
    const ann = room.join("ann");
    const ws = Array.from({ length: 50 }, () => watcher(room, { player: ann.playerId }));
    room.advance(FLUSH * 2);
    const before = room.stats().spectators!;
    room.advance(FLUSH * 10);
    const after = room.stats().spectators!;
    expect(after.encodes - before.encodes).toBe(10);
    expect(after.frames - before.frames).toBe(500);
    expect(ws.every((w) => w.frames >= 10)).toBe(true);
  });

  it("a spectator behind leaves its group and comes back with a welcome and a keyframe", () => {
    const room = fieldRoom();
    const ann = room.join("ann");
    const a = watcher(room, { player: ann.playerId });
    const b = watcher(room, { player: ann.playerId });
    room.advance(FLUSH * 2);
    b.buffered = 1 << 30;
    for (let i = 0; i < 6; i++) {
      ann.input({ dir: 1 });
      room.advance(FLUSH);
    }
    expect(room.stats().spectators!.skipped).toBeGreaterThan(0);
    b.buffered = 0;
    room.advance(FLUSH);
    expect(b.welcomes).toBe(2);
    expect(b.entities()).toEqual(a.entities());
  });

  it("spectators that joined and switched at different flushes decode what a fresh keyframe shows (property)", () => {
    type Op = { k: "join"; t: number; d: number } | { k: "switch"; i: number; t: number } | { k: "drop"; i: number } | { k: "move"; p: number; dir: number } | { k: "tick"; n: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ k: fc.constant("join" as const), t: fc.nat(5), d: fc.constantFrom(0, 0, 1) }),
      fc.record({ k: fc.constant("switch" as const), i: fc.nat(), t: fc.nat(5) }),
      fc.record({ k: fc.constant("drop" as const), i: fc.nat() }),
      fc.record({ k: fc.constant("move" as const), p: fc.nat(2), dir: fc.integer({ min: 0, max: 4 }) }),
      fc.record({ k: fc.constant("tick" as const), n: fc.integer({ min: 1, max: 6 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 5, maxLength: 40 }), (ops) => {
        const room = fieldRoom();
        const players = [room.join("a"), room.join("b"), room.join("c")];
        const targets: SpectateTarget[] = [...players.map((p) => ({ player: p.playerId })), { x: 500, y: 500 }, { x: 100, y: 900 }, { player: 99 }];
        const live: { w: Watcher; t: number; d: number }[] = [];
        for (const o of ops) {
          if (o.k === "join") live.push({ w: watcher(room, targets[o.t]!, o.d), t: o.t, d: o.d });
          else if (o.k === "switch" && live.length > 0) {
            const s = live[o.i % live.length]!;
            s.w.follow(targets[o.t]!);
            s.t = o.t;
          } else if (o.k === "drop" && live.length > 0) live.splice(o.i % live.length, 1)[0]!.w.drop();
          else if (o.k === "move") players[o.p]!.input({ dir: o.dir as 0 });
          else if (o.k === "tick") room.advance(FLUSH * o.n);
        }
        room.advance(FLUSH);
        // A probe per (target, delay) gets a keyframe at the next flush; everyone gets that flush.
        const probes = new Map<string, Watcher>();
        for (const s of live) if (!probes.has(`${s.t}/${s.d}`)) probes.set(`${s.t}/${s.d}`, watcher(room, targets[s.t]!, s.d));
        room.advance(FLUSH + (live.some((s) => s.d > 0) ? 1000 : 0));
        for (const s of live) {
          if (s.w.frames === 0) continue;
          expect(s.w.entities()).toEqual(probes.get(`${s.t}/${s.d}`)!.entities());
        }
      }),
      { numRuns: 60 },
    );
  });

  it("on a relay: fed the stream the relay gets, nothing on the simulation, the same view as the room's own spectators", () => {
    const relayed = new RelayedTestRoom<typeof fieldTypes, FieldGame, typeof fieldSchema.decl>(fieldDefinition(7), fieldTypes, { relays: 1, world: (g) => g.world, worldOptions: fieldWorldOptions });
    const single = fieldRoom();
    const [a, b] = [relayed.join("ann", { relay: 0 }), single.join("ann")];
    const onRelay = new Watcher(relayed.relays[0]!, fieldSchema).open({ target: { player: a.playerId }, delaySec: 0 });
    const inRoom = watcher(single, { player: b.playerId });
    for (let i = 0; i < 20; i++) {
      a.input({ dir: ((i % 4) + 1) as 1 });
      b.input({ dir: ((i % 4) + 1) as 1 });
      relayed.advance(FLUSH);
      single.advance(FLUSH);
    }
    expect(onRelay.frames).toBeGreaterThan(10);
    expect(onRelay.entities()).toEqual(inRoom.entities());
    expect(relayed.relays[0]!.spectators.stats()).toMatchObject({ connected: 1, groups: 1 });
    expect(relayed.room.snapshot().spectators).toBeUndefined();
    onRelay.say(binaryDialect.input(1, new Uint8Array([1])) as Uint8Array);
    expect(onRelay.messages.at(-1)).toMatchObject({ kind: "error", code: ErrorCode.spectating });
    expect(relayed.relays[0]!.stats.errors.spectating).toBe(1);
  });
});
