/**
 * A ticking game kept the way the Cloudflare host keeps it (core `KeptRoom`): each seat's record
 * written when the seat is taken, the world a chain of pieces every second, read back after a
 * "restart" into a fresh room. Against the whole checkpoint taken at the same moment: every
 * player of the last piece has the same cell (entity id, place, radius, score), a seat taken after
 * it comes back with a fresh cell, a player freed after it is gone; what a join and a second of
 * play write.
 */
import { KeptRoom, type HostedRoom, type RoomCheckpoint } from "@tikron/core";
import { TestRoom, type TestClient } from "@tikron/core/testing";
import { describe, expect, it } from "vitest";
import { AgarGame } from "../src/agar/agarGame";
import { Random } from "../src/random";
import { agarTypes } from "../src/schemas";

/** What a host keeps: key → JSON text, and every write counted. */
function keptHost() {
  const kept = new KeptRoom();
  const data = new Map<string, string>();
  const log: { key: string; chars: number }[] = [];
  const apply = (w: { key: string; value: string | null } | null) => {
    if (w === null) return;
    log.push({ key: w.key, chars: w.value?.length ?? 0 });
    if (w.value === null) data.delete(w.key);
    else data.set(w.key, w.value);
  };
  return {
    kept,
    data,
    log,
    hooks: { onSeatRecord: (id: number, rec: Parameters<KeptRoom["seat"]>[1]) => apply(kept.seat(id, rec)) },
    piece: (room: HostedRoom) => apply(kept.piece(room.checkpoint(kept.world))),
  };
}

type Agar = typeof agarTypes;
const make = (hooks?: ReturnType<typeof keptHost>["hooks"]) => new TestRoom(new AgarGame({ world: 1000, seed: 7 }), agarTypes, hooks ? { hooks } : {});

/** The cell a client sees as its own: entity id and record. */
function cellOf(c: TestClient<Agar>): { id: number; x: number; y: number; r: number; score: number } | undefined {
  for (const e of c.state.values()) if (e.type === "player" && e.record.pid === c.playerId) return { id: e.id, x: e.record.x, y: e.record.y, r: e.record.r, score: e.record.score };
  return undefined;
}

function play(room: TestRoom<Agar>, players: readonly TestClient<Agar>[], ms: number, rng: Random): void {
  for (let t = 0; t < ms; t += 50) {
    if (t % 250 === 0) {
      for (const p of players) {
        const a = rng.range(0, 2 * Math.PI);
        p.input({ dx: Math.cos(a), dy: Math.sin(a), boost: false });
      }
    }
    room.advance(50);
  }
}

describe("a ticking room kept seat by seat and piece by piece", () => {
  it("comes back as the whole checkpoint of its last piece would, seats taken or freed after it included", () => {
    const host = keptHost();
    const a = make(host.hooks);
    const rng = new Random(3);
    const players = ["ann", "bob", "cy", "dee", "eve"].map((n) => a.join(n));
    // One record per join, nothing else.
    expect(host.log.map((l) => l.key)).toEqual([1, 2, 3, 4, 5].map((id) => `room:seat:${id}`));
    for (let s = 0; s < 6; s++) {
      play(a, players, 1000, rng);
      host.piece(a.room);
    }
    const whole = JSON.parse(JSON.stringify(a.room.checkpoint())) as RoomCheckpoint;
    // After the last piece: one player leaves, one joins.
    const gone = players.pop()!;
    gone.leave();
    const late = a.join("fay");
    a.advance(50);

    const keptCp = new KeptRoom().read(host.data)!;
    expect(keptCp.seats.map((s) => s.playerId)).toEqual([1, 2, 3, 4, 6]);
    const b = make();
    expect(b.room.restoreCheckpoint(keptCp)).toBe(true);
    expect(b.stats().restoredGames).toBe(1);
    const c = make();
    expect(c.room.restoreCheckpoint(whole)).toBe(true);
    const back = [...players, late].map((p) => b.join(p.name, { token: p.token }));
    const twins = players.map((p) => c.join(p.name, { token: p.token }));
    b.advance(50);
    c.advance(50);
    for (const [i, p] of back.entries()) expect(p.welcome).toMatchObject({ reconnected: true, playerId: [...players, late][i]!.playerId });
    // Every player of the last piece: the very cell the whole checkpoint gives.
    for (const [i, twin] of twins.entries()) expect(cellOf(back[i]!)).toEqual(cellOf(twin));
    // The late seat: a fresh cell; the player who left: no cell.
    expect(cellOf(back[4]!)!.score).toBe(0);
    for (const e of back[0]!.state.values()) if (e.type === "player") expect(e.record.pid).not.toBe(gone.playerId);
  });

  it("writes pieces much smaller than a whole checkpoint while only some of the world changes", () => {
    const host = keptHost();
    const a = make(host.hooks);
    const rng = new Random(5);
    const players = Array.from({ length: 20 }, (_, i) => a.join(`p${i}`));
    play(a, players, 1000, rng);
    host.piece(a.room);
    const base = host.log.at(-1)!.chars;
    play(a, players, 1000, rng);
    host.piece(a.room);
    const next = host.log.at(-1)!.chars;
    const whole = JSON.stringify(a.room.checkpoint()).length;
    // 20 moving cells of 20 + 300 orbs (and their seats' seqs), against every entity and seat.
    expect(next).toBeLessThan(base / 2);
    expect(next).toBeLessThan(whole / 2);
  });

  it("writes nothing while the world stands still and no seat's seq moves, and reads back whole after such a spell", () => {
    const host = keptHost();
    const a = make(host.hooks);
    const rng = new Random(9);
    const players = Array.from({ length: 8 }, (_, i) => a.join(`p${i}`));
    play(a, players, 1000, rng);
    host.piece(a.room);
    // The players let go of their sticks: the cells stop, nothing is eaten, no input arrives.
    for (const p of players) p.input({ dx: 0, dy: 0, boost: false });
    a.advance(500);
    host.piece(a.room);
    const written = host.log.length;
    for (let s = 0; s < 5; s++) {
      a.advance(1000);
      host.piece(a.room);
    }
    expect(host.log.length).toBe(written);
    expect(host.kept.unchanged).toBe(5);
    // They move again: the next piece is written, and storage reads back as the room is now.
    play(a, players, 1000, rng);
    host.piece(a.room);
    expect(host.log.length).toBe(written + 1);
    const whole = JSON.parse(JSON.stringify(a.room.checkpoint())) as RoomCheckpoint;
    const b = make();
    const c = make();
    expect(b.room.restoreCheckpoint(new KeptRoom().read(host.data)!)).toBe(true);
    expect(c.room.restoreCheckpoint(whole)).toBe(true);
    const back = players.map((p) => b.join(p.name, { token: p.token }));
    const twins = players.map((p) => c.join(p.name, { token: p.token }));
    b.advance(50);
    c.advance(50);
    for (const [i, twin] of twins.entries()) expect(cellOf(back[i]!)).toEqual(cellOf(twin));
  });
});
