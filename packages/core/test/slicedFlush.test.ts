import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryWriter, PROTOCOL_VERSION, encodeHello, encodeLeave } from "@tikron/protocol";
import { FakeClock, Room, type RoomOptions } from "../src";
import { CounterGame, FakeConnection, deltaVersion } from "./fakes";

const w = new BinaryWriter();
const hello = (token = "") => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token, name: "p" }).toBytes();

/** A counter game whose world changes every tick, so every client owes a frame at every flush. */
class ChangingGame extends CounterGame {
  override tick(now: number): void {
    super.tick(now);
    this.encoder.version++;
  }
}

/** A clock whose next-task queue runs only when the test says so (a runtime that is very busy). */
class HeldTaskClock extends FakeClock {
  readonly tasks: (() => void)[] = [];
  override nextTask(fn: () => void): void {
    this.tasks.push(fn);
  }
  runTask(): void {
    this.tasks.shift()?.();
  }
}

function setup(opts: Partial<RoomOptions>, clock: FakeClock = new FakeClock()) {
  const game = new ChangingGame();
  const room = new Room({ kind: "counter", roomId: "r1", game, clock, options: { tickMs: 50, syncIntervalMs: 50, idleFrameMs: 0, ...opts } });
  const join = (token = "") => {
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, hello(token));
    const welcome = conn.messages().find((m) => m.kind === "welcome") as { token: string } | undefined;
    return { conn, id, token: welcome?.token ?? "" };
  };
  /** Runs timers one at a time until a flush has started (its first slice ran in the tick's task). */
  const stepToFlush = () => {
    const before = room.snapshot().flushes;
    while (room.snapshot().flushes === before) if (!clock.step()) throw new Error("no flush due");
  };
  return { clock, game, room, join, stepToFlush };
}

const frameCounts = (clients: { conn: FakeConnection }[]) => clients.map((c) => c.conn.frames().length);

describe("Room: the flush in slices", () => {
  it("cuts a big flush into slices of flushSliceClients clients, each a task of its own", () => {
    const { clock, room, join, stepToFlush } = setup({ flushSliceClients: 4 });
    const clients = Array.from({ length: 10 }, () => join());
    clock.advance(100);
    const base = frameCounts(clients);
    stepToFlush();
    // The tick's own task encoded the first slice only; the rest waits for tasks of its own.
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual([1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect(clock.step()).toBe(true);
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    expect(clock.step()).toBe(true);
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    // Only the next tick is left: the flush is over.
    expect(clock.pending).toBe(1);
    const snap = room.snapshot();
    expect(snap.flushSlices).toBe(3 * snap.flushes);
    expect(snap.flushSlice.count).toBe(snap.flushes);
    expect(snap.flushSlice.max).toBeLessThanOrEqual(snap.flush.max);
  });

  it("leaves a small room's flush whole, in the tick's own task", () => {
    const { clock, room, join, stepToFlush } = setup({ flushSliceClients: 4 });
    const clients = Array.from({ length: 4 }, () => join());
    clock.advance(100);
    const base = frameCounts(clients);
    stepToFlush();
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual([1, 1, 1, 1]);
    expect(clock.pending).toBe(1); // the next tick, no slice task
    const snap = room.snapshot();
    expect(snap.flushSlices).toBe(snap.flushes);
  });

  it("never slices with flushSliceClients 0", () => {
    const { clock, room, join, stepToFlush } = setup({ flushSliceClients: 0, cap: 100 });
    const clients = Array.from({ length: 30 }, () => join());
    clock.advance(100);
    const base = frameCounts(clients);
    stepToFlush();
    expect(frameCounts(clients).every((n, i) => n === base[i]! + 1)).toBe(true);
    expect(room.snapshot().flushSlices).toBe(room.snapshot().flushes);
  });

  it("sends every client exactly one frame per flush, its notices first", () => {
    const { clock, game, room, join } = setup({ flushSliceClients: 3 });
    const clients = Array.from({ length: 11 }, () => join());
    clock.advance(100);
    const base = frameCounts(clients);
    const flushesBefore = room.snapshot().flushes;
    const origTick = game.tick.bind(game);
    game.tick = (now: number) => {
      origTick(now);
      game.ctx.broadcast("round", { now });
    };
    clock.advance(1000);
    const flushes = room.snapshot().flushes - flushesBefore;
    expect(flushes).toBe(20);
    for (const [i, c] of clients.entries()) {
      expect(c.conn.frames().length - base[i]!).toBe(flushes);
      // Every notice went out right before its flush's frame, in every slice.
      const kinds = c.conn.messages().slice(-2 * flushes).map((m) => m.kind);
      expect(kinds).toEqual(Array.from({ length: flushes }, () => ["notice", "frame"]).flat());
    }
  });

  it("skips a client that leaves between two slices and flushes the rest once", () => {
    const { clock, room, join, stepToFlush } = setup({ flushSliceClients: 4, reconnectWindowMs: 0 });
    const clients = Array.from({ length: 10 }, () => join());
    clock.advance(100);
    const base = frameCounts(clients);
    stepToFlush();
    // One already flushed and one still waiting leave before the next slice.
    room.message(clients[1]!.id, encodeLeave(w.reset()).toBytes());
    room.message(clients[6]!.id, encodeLeave(w.reset()).toBytes());
    clock.step();
    clock.step();
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual([1, 1, 1, 1, 1, 1, 0, 1, 1, 1]);
    expect(room.snapshot().errors).toEqual({});
    clock.advance(50);
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual([2, 1, 2, 2, 2, 2, 0, 2, 2, 2]);
  });

  it("gives a client that joins between two slices its first frame at the next flush", () => {
    const { clock, room, join, stepToFlush } = setup({ flushSliceClients: 4 });
    const clients = Array.from({ length: 10 }, () => join());
    clock.advance(100);
    const base = frameCounts(clients);
    stepToFlush();
    const late = join();
    clock.step();
    clock.step();
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual(Array(10).fill(1));
    expect(late.conn.frames().length).toBe(0);
    clock.advance(50);
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual(Array(10).fill(2));
    expect(late.conn.frames().length).toBe(1);
  });

  it("flushes a client that reconnects between two slices once, on its new socket", () => {
    const { clock, room, join, stepToFlush } = setup({ flushSliceClients: 4 });
    const clients = Array.from({ length: 10 }, () => join());
    clock.advance(100);
    stepToFlush();
    const dropped = clients[7]!;
    room.closed(dropped.id, 1006);
    const conn = new FakeConnection();
    room.message(room.open(conn), hello(dropped.token));
    expect(conn.messages()[0]).toMatchObject({ kind: "welcome", reconnected: true });
    clock.step();
    clock.step();
    expect(conn.frames().length).toBe(1);
    clock.advance(50);
    expect(conn.frames().length).toBe(2);
  });

  it("finishes a flush still in slices before the next tick runs the game", () => {
    const clock = new HeldTaskClock();
    const { game, room, join, stepToFlush } = setup({ flushSliceClients: 4 }, clock);
    const clients = Array.from({ length: 10 }, () => join());
    clock.advance(100);
    while (clock.tasks.length > 0) clock.runTask();
    const finishedBefore = room.snapshot().flushesFinishedAtOnce;
    const base = frameCounts(clients);
    stepToFlush();
    expect(clock.tasks.length).toBe(1);
    const version = game.encoder.version;
    // The runtime never got to the slices: the next tick sends what is left, then ticks.
    stepToFlush();
    const mine = clients.map((c, i) => c.conn.frames().slice(base[i]!));
    expect(mine.map((f) => f.length)).toEqual([2, 2, 2, 2, 1, 1, 1, 1, 1, 1]);
    // Everyone got the flush begun before the tick, with the world as it was begun.
    const first = mine[0]![0]!;
    for (const f of mine) {
      expect(f[0]!.tick).toBe(first.tick);
      expect(deltaVersion(f[0]!.body!)).toBe(version);
    }
    expect(mine[0]![1]!.tick).toBe(first.tick + 1);
    expect(game.encoder.version).toBe(version + 1);
    expect(room.snapshot().flushesFinishedAtOnce - finishedBefore).toBe(1);
    // The task left over from the finished flush now runs the new flush's next slice, no more.
    clock.runTask();
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 1, 1]);
  });

  it("finishes the flush in progress when the room is disposed", () => {
    const clock = new HeldTaskClock();
    const { room, join, stepToFlush } = setup({ flushSliceClients: 4 }, clock);
    const clients = Array.from({ length: 6 }, () => join());
    clock.advance(100);
    while (clock.tasks.length > 0) clock.runTask();
    const base = frameCounts(clients);
    stepToFlush();
    room.dispose();
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual(Array(6).fill(1));
    clock.runTask(); // a no-op now
    expect(frameCounts(clients).map((n, i) => n - base[i]!)).toEqual(Array(6).fill(1));
  });

  it("for any slice size, seats and joins, leaves, drops and reconnects between tasks: at most one frame per client per flush, exactly one to every client left alone", () => {
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.constant({ kind: "step" as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: "join" as const }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("leave" as const, "drop" as const, "reconnect" as const), who: fc.nat() }) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 16 }), fc.array(op, { maxLength: 120 }), (slice, seated, ops) => {
        const { clock, room, join, stepToFlush } = setup({ flushSliceClients: slice, cap: 100, reconnectWindowMs: 60_000 });
        type Client = ReturnType<typeof join> & { flushesAtJoin: number; disturbed: boolean };
        const add = (): Client => ({ ...join(), flushesAtJoin: room.snapshot().flushes, disturbed: false });
        const clients: Client[] = Array.from({ length: seated }, add);
        const dropped: Client[] = [];
        stepToFlush();
        for (const o of ops) {
          if (o.kind === "step") clock.step();
          else if (o.kind === "join") clients.push(add());
          else if (o.kind === "reconnect") {
            const back = dropped.splice(o.who % Math.max(1, dropped.length), 1)[0];
            if (back) clients.push({ ...join(back.token), flushesAtJoin: room.snapshot().flushes, disturbed: true });
          } else {
            const c = clients[o.who % clients.length]!;
            if (c.disturbed) continue;
            c.disturbed = true;
            if (o.kind === "leave") room.message(c.id, encodeLeave(w.reset()).toBytes());
            else {
              room.closed(c.id, 1006);
              dropped.push(c);
            }
          }
        }
        clock.advance(200);
        const flushes = room.snapshot().flushes;
        for (const c of clients) {
          const ticks = c.conn.frames().map((f) => f.tick);
          // One flush, one tick: never two frames of one flush on one socket.
          for (let i = 1; i < ticks.length; i++) expect(ticks[i]!).toBeGreaterThan(ticks[i - 1]!);
          if (!c.disturbed) expect(ticks.length).toBe(flushes - c.flushesAtJoin);
        }
        expect(room.snapshot().errors).toEqual({});
      }),
      { numRuns: 60 },
    );
  });
});
