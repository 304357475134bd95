/**
 * A single room promoted to a relayed room (AGENTS.md "Relays", "Promotion"): the host hands the
 * single room over (`Room.handOver`) and restores its checkpoint into a simulation; its players
 * come back through relays into their own seats, as after a restart.
 */
import { CloseCode } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import type { RoomSessionRecord } from "../../src";
import { FakeClock } from "../../src";
import { RelayedTestRoom, TestRoom } from "../../src/testing";
import { DOT_STEP, DotsGame, dotsDefinition, dotsSchema, dotsTypes } from "../testing/games";

const welcomes = (c: { messages: readonly { kind: string }[] }) => c.messages.filter((m) => m.kind === "welcome") as unknown as { playerId: number; reconnected: boolean; lastSeq: number }[];

describe("a single room promoted to a relayed room", () => {
  it("handed over: its sockets close with going_away, no seat is freed, no session ends, its game is not disposed, its timers stop", () => {
    const clock = new FakeClock();
    const ended: RoomSessionRecord[] = [];
    const single = new TestRoom<typeof dotsTypes, DotsGame>(dotsDefinition, dotsTypes, { clock, hooks: { onSessionEnd: (r) => ended.push(r) } });
    let disposed = 0;
    (single.game as DotsGame & { onDispose?: () => void }).onDispose = () => void disposed++;
    const ann = single.join("ann");
    const bob = single.join("bob");
    ann.input({ dx: 1 });
    single.advance(50);
    const framesBefore = bob.frames.length;
    single.room.handOver(CloseCode.going_away, "the room is now relayed; reconnect");
    expect([ann.closed?.code, bob.closed?.code]).toEqual([CloseCode.going_away, CloseCode.going_away]);
    // Far past the reconnection window: the old room frees nothing and sends nothing.
    single.advance(10 * 60_000);
    expect(ended).toEqual([]);
    expect(disposed).toBe(0);
    expect(single.room.seatCount).toBe(2);
    expect(bob.frames.length).toBe(framesBefore);
    expect(clock.pending).toBe(0);
    // Idempotent; a dispose afterwards does not tell the game either.
    single.room.handOver(CloseCode.going_away, "again");
    single.room.dispose();
    expect(disposed).toBe(0);
  });

  it("its checkpoint restored into a simulation: each player reconnects through a relay with its token into its own seat, and play goes on", () => {
    const single = new TestRoom(dotsDefinition, dotsTypes, {});
    const ann = single.join("ann");
    const bob = single.join("bob");
    ann.input({ dx: 1 });
    single.advance(50);
    const checkpoint = JSON.parse(JSON.stringify(single.room.checkpoint()));
    single.room.handOver(CloseCode.going_away, "the room is now relayed; reconnect");

    const relayed = new RelayedTestRoom<typeof dotsTypes, DotsGame, typeof dotsSchema.decl>(dotsDefinition, dotsTypes, { relays: 2, world: (g) => g.world, worldOptions: { tiers: [{ radius: 1000, every: 1 }] } });
    expect(relayed.room.restoreCheckpoint(checkpoint)).toBe(true);
    const ann2 = relayed.join("ann", { relay: 0, token: ann.token });
    const bob2 = relayed.join("bob", { relay: 1, token: bob.token });
    relayed.advance(50);
    expect(welcomes(ann2).map((w) => [w.playerId, w.reconnected, w.lastSeq])).toEqual([[ann.playerId, true, 1]]);
    expect(welcomes(bob2).map((w) => [w.playerId, w.reconnected])).toEqual([[bob.playerId, true]]);
    expect(relayed.stats()).toMatchObject({ seats: 2, ccu: 2, restoredSeats: 2, reconnects: 2, joins: 0 });
    // Seqs go on above the restored seat's, applied and acked through the relay.
    const seq = ann2.input({ dx: 1 });
    relayed.advance(50);
    expect(ann2.ackSeq).toBe(seq);
    const annAsBobSees = [...bob2.state.values()].find((e) => e.record.name === "ann")?.record.x;
    expect(annAsBobSees).toBe(500 + DOT_STEP);
  });

  it("the seat reservations it held pending go over to the simulation, each for the time it had left", () => {
    const clock = new FakeClock();
    const single = new TestRoom<typeof dotsTypes, DotsGame>(dotsDefinition, dotsTypes, { clock, overrides: { cap: 3 } });
    single.join("ann");
    single.room.reserveSeats({ roomId: "test", seats: [{ reservationId: "res-zedxxxxxxxxxxxxx", identity: "zed" }], ttlMs: 10_000, byId: true });
    single.advance(4_000);
    const pending = single.room.pendingReservations();
    expect(pending).toEqual([{ id: "res-zedxxxxxxxxxxxxx", identity: "zed", ttlMs: 6_000 }]);
    const checkpoint = JSON.parse(JSON.stringify(single.room.checkpoint()));
    single.room.handOver(CloseCode.going_away, "the room is now relayed; reconnect");
    expect(single.room.pendingReservations()).toEqual([]);

    const relayed = new RelayedTestRoom<typeof dotsTypes, DotsGame, typeof dotsSchema.decl>(dotsDefinition, dotsTypes, { clock, relays: 1, overrides: { cap: 3 }, world: (g) => g.world, worldOptions: { tiers: [{ radius: 1000, every: 1 }] } });
    relayed.room.restoreCheckpoint(checkpoint);
    relayed.room.holdReservations(pending);
    // Counted against the cap as in the old room: ann's held seat and zed's leave one free.
    expect(relayed.room.status()).toMatchObject({ reserved: 1 });
    expect(relayed.room.reserveSeats({ roomId: "test", seats: [{ reservationId: "res-amyxxxxxxxxxxxxx", identity: "amy" }, { reservationId: "res-bobxxxxxxxxxxxxx", identity: "bob" }], ttlMs: 10_000, byId: true })).toMatchObject({ ok: false });
    relayed.advance(5_990);
    expect(relayed.room.status()).toMatchObject({ reserved: 1 });
    relayed.advance(20);
    expect(relayed.room.status()).toMatchObject({ reserved: 0 });
  });
});
