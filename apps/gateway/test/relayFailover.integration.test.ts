/**
 * A relayed room's failures under a real `wrangler dev` (AGENTS.md "Relays", issue 25 item 3),
 * made with the DEV_MODE abort drill (`POST /rooms/:kind/:roomId/abort[?relay=i]`), which resets
 * one object as a failed one would be on the edge:
 * - a relay dies: its clients (the SDK, reconnecting by itself) are seated again in their own
 *   seats within 5 s, the other relay's clients notice nothing, and the seats never pass the cap;
 * - the simulation dies: the relays keep their clients' sockets, link again to the simulation
 *   back from its checkpoint, and every client is welcomed back into its seat within 5 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Random, seedFrom } from "@tikron/games";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { DrillPlayer, type OwnCell } from "./restartDrill";
import { until } from "../../../test/roomProtocol/jsonClient";

const BACK_WITHIN_MS = 5_000;
/** The rooms' checkpoint interval: a restored cell is one its player was shown at most this long (and a write) before the abort. */
const CHECKPOINT_MS = 1_000;
let server: WranglerDevServer | undefined;
const players: DrillPlayer[] = [];

beforeAll(async () => {
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
});

afterAll(async () => {
  for (const p of players) p.close();
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A player that also records the closes it saw (time, code). */
function player(url: string, room: string, name: string, random: () => number): { p: DrillPlayer; closes: { at: number; code: number }[] } {
  const p = new DrillPlayer(url, room, name, random);
  players.push(p);
  const closes: { at: number; code: number }[] = [];
  p.conn.on("close", (c) => closes.push({ at: performance.now(), code: c.code }));
  return { p, closes };
}

/** Farthest an agar cell of this size moves in one tick, with margin. */
const ONE_TICK = 20;
/** Most score a cell gains in one tick (pellets eaten at once), with margin. */
const ONE_TICK_SCORE = 8;

/**
 * Whether `restored` is a state of its cell the player was shown in the checkpoint window
 * before `downAt` (the same entity), carried on by at most one tick: the restored simulation
 * ticks once before its first flush, with the steering the client sent until its welcome, so
 * the cell may have moved a step and eaten a few pellets. A fresh spawn (elsewhere, score 0) or
 * a world from an older checkpoint is not that.
 */
function nearCheckpoint(player: DrillPlayer, restored: OwnCell, downAt: number): boolean {
  const windowMs = CHECKPOINT_MS + 500;
  return player.seen.some(
    (s) =>
      s.at < downAt &&
      s.at >= downAt - windowMs &&
      s.id === restored.id &&
      Math.hypot(s.x - restored.x, s.y - restored.y) <= ONE_TICK &&
      restored.score >= s.score &&
      restored.score <= s.score + ONE_TICK_SCORE &&
      restored.r >= s.r,
  );
}

async function roomStats(room: string): Promise<any> {
  return (await fetch(`${server!.url}/rooms/agar/${room}/stats`)).json();
}

/** Polls the simulation's seat count until stopped; resolves with the highest seen. */
function watchSeats(room: string): { stop(): Promise<number> } {
  let stopped = false;
  let highest = 0;
  const done = (async () => {
    while (!stopped) {
      try {
        highest = Math.max(highest, (await roomStats(room)).seats ?? 0);
      } catch {
        // the simulation being made again; the next poll reads it
      }
      await sleep(100);
    }
    return highest;
  })();
  return {
    stop: () => {
      stopped = true;
      return done;
    },
  };
}

async function abort(room: string, relay?: number): Promise<Response> {
  return fetch(`${server!.url}/rooms/agar/${room}/abort${relay === undefined ? "" : `?relay=${relay}`}`, { method: "POST" });
}

/** Six players joined one after another: DEV_MODE joins without an identity alternate over the two relays. */
async function seatSix(room: string, cap: number) {
  const url = `${server!.wsUrl}?relays=2&world=500&aoi=600&cap=${cap}&checkpointMs=${CHECKPOINT_MS}`;
  const rng = new Random(seedFrom(room));
  const all: ReturnType<typeof player>[] = [];
  for (let i = 0; i < 6; i++) {
    const c = player(url, room, `p${i}`, () => rng.next());
    await c.p.conn.whenJoined();
    all.push(c);
  }
  expect(await until(() => all.every((c) => c.p.seen.length > 5), 10_000), "every player sees its cell").toBe(true);
  return all;
}

describe("a relayed room when a relay dies", () => {
  it("its clients are back in their own seats within 5 s through the gateway; the other relay's clients see nothing; the cap holds", async () => {
    const room = `relay-dies-${Date.now()}`;
    const cap = 6;
    const all = await seatSix(room, cap);
    const before = await roomStats(room);
    expect(before).toMatchObject({ seats: 6 });
    expect(before.adapter.relayObjects.map((r: any) => [r.index, r.sockets]).sort()).toEqual([
      [0, 3],
      [1, 3],
    ]);
    const seats = watchSeats(room);
    const ids = all.map((c) => c.p.conn.playerId);

    const downAt = performance.now();
    expect((await abort(room, 0)).status).toBe(202);
    // Relay 0's three clients lose their socket; each comes back (through whichever relay the
    // gateway picks: relay 0, made again, or relay 1) into its held seat.
    expect(await until(() => all.filter((c) => c.closes.length > 0).length === 3, BACK_WITHIN_MS), "relay 0's clients saw their socket close").toBe(true);
    const dropped = all.filter((c) => c.closes.length > 0);
    const kept = all.filter((c) => c.closes.length === 0);
    expect(await until(() => dropped.every((c) => c.p.welcomes.length === 2 && c.p.firstAfterWelcome.length === 2), 3 * BACK_WITHIN_MS), "relay 0's clients were welcomed back").toBe(true);
    const backMs = dropped.map((c) => c.p.welcomes[1]!.at - downAt);
    console.log(`relay 0 aborted: its ${dropped.length} clients seated again after ${backMs.map((ms) => ms.toFixed(0)).join(", ")} ms (slowest ${Math.max(...backMs).toFixed(0)} ms)`);
    for (const [i, c] of all.entries()) {
      if (c.closes.length === 0) continue;
      expect(c.p.welcomes[1]).toMatchObject({ playerId: ids[i], reconnected: true });
    }
    expect(Math.max(...backMs)).toBeLessThanOrEqual(BACK_WITHIN_MS);

    // Relay 1's clients: no close, one welcome, frames all along.
    await sleep(1_000);
    const since = performance.now() - 1_000;
    for (const c of kept) {
      expect(c.closes).toEqual([]);
      expect(c.p.welcomes.length).toBe(1);
      expect(c.p.seen.filter((s) => s.at > since).length).toBeGreaterThan(5);
    }
    for (const c of all) expect(c.p.errors).toEqual([]);
    expect(await seats.stop()).toBeLessThanOrEqual(cap);
    const after = await roomStats(room);
    expect(after).toMatchObject({ seats: 6, ccu: 6 });
    expect(after.adapter.relayObjects.reduce((n: number, r: any) => n + r.seated, 0)).toBe(6);
  }, 90_000);
});

describe("a relayed room when its simulation dies", () => {
  it("the relays keep their clients' sockets, link again, and every client is welcomed back into its own seat within 5 s", async () => {
    const room = `sim-dies-${Date.now()}`;
    const cap = 6;
    const all = await seatSix(room, cap);
    const ids = all.map((c) => c.p.conn.playerId);
    // Past one periodic checkpoint of the world, so the restored cells are where they were.
    await sleep(CHECKPOINT_MS + 500);
    const seats = watchSeats(room);

    const downAt = performance.now();
    expect((await abort(room)).status).toBe(202);
    expect(await until(() => all.every((c) => c.p.welcomes.length === 2 && c.p.firstAfterWelcome.length === 2), 3 * BACK_WITHIN_MS), "every client was welcomed back").toBe(true);
    const backMs = all.map((c) => c.p.welcomes[1]!.at - downAt);
    console.log(`simulation aborted: its 6 clients welcomed back on their sockets after ${backMs.map((ms) => ms.toFixed(0)).join(", ")} ms (slowest ${Math.max(...backMs).toFixed(0)} ms)`);
    expect(Math.max(...backMs)).toBeLessThanOrEqual(BACK_WITHIN_MS);
    for (const [i, c] of all.entries()) {
      // No close: the socket the client had is the one it was welcomed back on.
      expect(c.closes).toEqual([]);
      expect(c.p.welcomes[1]).toMatchObject({ playerId: ids[i], reconnected: true });
      expect(c.p.errors).toEqual([]);
      // Its cell came back from the checkpoint: one the player was shown just before the abort,
      // carried on by at most one tick.
      const restored = c.p.firstAfterWelcome[1]!;
      const shown = c.p.seen.filter((s) => s.at < downAt && s.at >= downAt - CHECKPOINT_MS - 500).map((s) => [Math.round(downAt - s.at), s.id, s.x, s.y, s.r, s.score]);
      expect(nearCheckpoint(c.p, restored, downAt), `player ${i}'s restored cell ${JSON.stringify(restored)} against ${JSON.stringify(shown)}`).toBe(true);
    }
    // Frames of the restored world go on.
    await sleep(1_000);
    const since = performance.now() - 1_000;
    for (const c of all) expect(c.p.seen.filter((s) => s.at > since).length).toBeGreaterThan(5);
    expect(await seats.stop()).toBeLessThanOrEqual(cap);
    const after = await roomStats(room);
    expect(after).toMatchObject({ seats: 6, ccu: 6, restoredSeats: 6 });
    expect(after.adapter.relayObjects.map((r: any) => [r.index, r.sockets, r.seated]).sort()).toEqual([
      [0, 3, 3],
      [1, 3, 3],
    ]);
  }, 90_000);
});
