/**
 * What a game keeps and reaches beyond the tick: its durable store (saved with the checkpoint,
 * handed back to the next room), the host's environment, deferred work off the tick path
 * (watched, counted, failures logged) and `onDispose` when the room goes.
 */
import type { AnyGameTypes } from "@tikron/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_PENDING_DEFERRED, type DisposeInfo, type GameContext, type GameDefinition, type RoomHooks } from "../src";
import { TestRoom } from "../src/testing";
import { DotsGame, dotsTypes } from "./testing/games";

/** The host environment this test's game expects. */
interface Env {
  log: string[];
}

class KeepingDots extends DotsGame {
  c!: GameContext<AnyGameTypes, Env>;
  disposed: DisposeInfo[] = [];
  onDisposeDo: (() => void) | null = null;
  override init(ctx: GameContext<AnyGameTypes, Env>): void {
    super.init(ctx);
    this.c = ctx;
  }
  onDispose(info: DisposeInfo): void {
    this.disposed.push(info);
    this.onDisposeDo?.();
  }
  override tick(now: number): void {
    // Work deferred from the tick runs after it (and after its flush), not inside it.
    if (now === 100) this.c.defer(async () => void this.c.env.log.push(`deferred ran at ${this.c.now()}`), "tick work");
  }
}

const definition: GameDefinition<Env> = { kind: "dots", defaults: { tickMs: 50, syncIntervalMs: 50, cap: 4 }, create: () => new KeepingDots() };

afterEach(() => vi.restoreAllMocks());

describe("the game's store", () => {
  it("asks for a checkpoint on each change, and the next room under the id starts from what the host kept", () => {
    const due: boolean[] = [];
    const hooks: RoomHooks = { onCheckpointDue: (soon) => due.push(soon) };
    const first = new TestRoom(definition, dotsTypes, { hooks, env: { log: [] } });
    const game = first.game as KeepingDots;
    expect(first.room.storeSnapshot()).toBeNull();
    game.c.store.set("best", { name: "ann", score: 3 });
    game.c.store.set("rounds", 1);
    expect(due).toEqual([true, true]);
    game.c.store.set("rounds", 1); // the same value: no change, no checkpoint
    expect(due).toEqual([true, true]);
    expect(first.room.storeVersion).toBe(2);
    expect(first.stats().store).toEqual({ keys: 2, chars: "best".length + '{"name":"ann","score":3}'.length + "rounds".length + 1, version: 2 });

    // What a host keeps is JSON: through storage and back, the next room reads the same values.
    const kept = JSON.parse(JSON.stringify(first.room.storeSnapshot()));
    const next = new TestRoom(definition, dotsTypes, { store: kept, env: { log: [] } });
    const g2 = next.game as KeepingDots;
    expect(g2.c.store.get("best")).toEqual({ name: "ann", score: 3 });
    expect(g2.c.store.keys()).toEqual(["best", "rounds"]);
    expect(next.room.storeVersion).toBe(0); // loading is not a change
  });

  it("starts empty from a kept value that is not a store, and says so", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const room = new TestRoom(definition, dotsTypes, { store: { v: 1, entries: "nope" }, env: { log: [] } });
    expect((room.game as KeepingDots).c.store.size).toBe(0);
    expect(room.stats().errors).toMatchObject({ store_refused: 1 });
    expect(error).toHaveBeenCalledWith(expect.stringContaining("the kept game store is not one"));
  });
});

describe("the host environment and deferred work", () => {
  it("hands the game the host's env, and runs deferred work after the tick that asked for it", async () => {
    const kept: Promise<unknown>[] = [];
    const env: Env = { log: [] };
    const room = new TestRoom(definition, dotsTypes, { env, hooks: { onDeferred: (p) => kept.push(p) } });
    const game = room.game as KeepingDots;
    expect(game.c.env).toBe(env);
    room.join("ann");
    room.advance(100);
    expect(kept).toHaveLength(1);
    await room.settle();
    expect(env.log).toEqual(["deferred ran at 100"]);
    expect(room.stats().deferred).toEqual({ started: 1, done: 1, failed: 0, refused: 0, pending: 0 });
  });

  it("logs and counts a failure, never throws it into the room, and refuses work past the pending limit", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const room = new TestRoom(definition, dotsTypes, { env: { log: [] } });
    const game = room.game as KeepingDots;
    const ann = room.join("ann");
    expect(game.c.defer(Promise.reject(new Error("D1 is down")), "save round")).toBe(true);
    expect(game.c.defer(() => {
      throw new Error("threw at once");
    }, "bad function")).toBe(true);
    await room.settle();
    expect(room.stats().deferred).toMatchObject({ started: 2, done: 0, failed: 2, pending: 0 });
    expect(room.stats().errors).toMatchObject({ deferred_failed: 2 });
    expect(error).toHaveBeenCalledWith(expect.stringContaining("deferred save round failed:"), "D1 is down");
    expect(error).toHaveBeenCalledWith(expect.stringContaining("deferred bad function failed:"), "threw at once");

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    for (let i = 0; i < MAX_PENDING_DEFERRED; i++) expect(game.c.defer(gate)).toBe(true);
    expect(game.c.defer(gate, "one too many")).toBe(false);
    expect(room.stats().deferred).toMatchObject({ pending: MAX_PENDING_DEFERRED, refused: 1 });
    let idle = false;
    const waiting = room.room.deferredIdle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    release();
    await waiting;
    expect(room.stats().deferred).toMatchObject({ pending: 0, done: MAX_PENDING_DEFERRED });
    // The room played on throughout.
    ann.input({ dx: 1 });
    room.advance(50);
    expect(ann.ackSeq).toBe(1);
    expect(ann.closed).toBeNull();
  });
});

describe("onDispose", () => {
  it("tells the game once, after the sockets close: shutdown with seats taken, and it may still defer and keep", async () => {
    const env: Env = { log: [] };
    const room = new TestRoom(definition, dotsTypes, { env });
    const game = room.game as KeepingDots;
    const ann = room.join("ann");
    game.onDisposeDo = () => {
      expect(ann.closed).toMatchObject({ code: 4008 });
      game.c.store.set("last", "shutdown");
      game.c.defer(async () => void env.log.push("flushed"), "flush");
    };
    room.room.dispose();
    room.room.dispose();
    expect(game.disposed).toEqual([{ reason: "shutdown" }]);
    await room.settle();
    expect(env.log).toEqual(["flushed"]);
    expect(room.room.storeSnapshot()).toEqual({ v: 1, entries: [["last", '"shutdown"']] });
  });

  it("says empty when no seat is taken, and a throw is counted, not thrown", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const room = new TestRoom(definition, dotsTypes, { env: { log: [] } });
    const game = room.game as KeepingDots;
    const ann = room.join("ann");
    ann.leave();
    game.onDisposeDo = () => {
      throw new Error("oops");
    };
    expect(() => room.room.dispose()).not.toThrow();
    expect(game.disposed).toEqual([{ reason: "empty" }]);
    expect(room.stats().errors).toMatchObject({ internal: 1 });
    expect(error).toHaveBeenCalledWith(expect.stringContaining("onDispose error"), expect.any(Error));
  });
});
