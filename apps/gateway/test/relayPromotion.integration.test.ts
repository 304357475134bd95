/**
 * A room that becomes relayed as it grows (AGENTS.md "Relays", "Promotion") under a real
 * `wrangler dev`: an agar room made with the DEV_MODE overrides `relays=2&relayAt=4` is a single
 * room for its first three players; the fourth seat promotes it. Every player's socket closes
 * with `going_away`, the SDK reconnects at once with its token through the gateway, which the
 * room's object now sends on to a relay, and each is back in its own seat (same player id, its
 * cell going on from where it was) within 5 s, through the relays; the seats never pass the
 * cap; a matchmade join afterwards lands through a relay too; and the promoted room's object,
 * restarted, comes back relayed from its checkpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchmaker } from "@tikron/client";
import { agarTypes } from "@tikron/games/schemas";
import { Random, seedFrom } from "@tikron/games";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { DrillPlayer, type OwnCell } from "./restartDrill";
import { until } from "../../../test/roomProtocol/jsonClient";

const BACK_WITHIN_MS = 5_000;
/** Farthest an agar cell moves in the ticks between the last frame its player saw and the first after its welcome, with margin. */
const FEW_TICKS = 60;
let server: WranglerDevServer | undefined;
const players: DrillPlayer[] = [];
const others: { close(): void }[] = [];

beforeAll(async () => {
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
});

afterAll(async () => {
  for (const p of players) p.close();
  for (const o of others) o.close();
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function roomStats(room: string): Promise<any> {
  return (await fetch(`${server!.url}/rooms/agar/${room}/stats`)).json();
}

/** The same cell, a few ticks on at most: not a fresh spawn, not a lost score. */
function continues(before: OwnCell, after: OwnCell): boolean {
  return after.id === before.id && Math.hypot(after.x - before.x, after.y - before.y) <= FEW_TICKS && after.score >= before.score && after.r >= before.r;
}

describe("a room that becomes relayed as it grows (relays=2&relayAt=4)", () => {
  it("plays single below the threshold; the seat that reaches it promotes the room and every player is back in its own seat through the relays within 5 s", async () => {
    const room = `grows-${Date.now()}`;
    const cap = 6;
    const url = `${server!.wsUrl}?relays=2&relayAt=4&world=500&aoi=600&cap=${cap}`;
    const rng = new Random(seedFrom(room));
    const closes: number[][] = [];
    const join = (i: number) => {
      const p = new DrillPlayer(url, room, `p${i}`, () => rng.next());
      players.push(p);
      const mine: number[] = [];
      closes.push(mine);
      p.conn.on("close", (c) => mine.push(c.code));
      return p;
    };

    // Three players: a single room, its sockets on its own object.
    for (let i = 0; i < 3; i++) await join(i).conn.whenJoined();
    expect(await until(() => players.every((p) => p.seen.length > 5), 10_000), "the first three see their cells").toBe(true);
    const single = await roomStats(room);
    expect(single).toMatchObject({ seats: 3, ccu: 3 });
    expect(single.adapter).toMatchObject({ relays: 0, sockets: 3, relayObjects: [] });
    expect(single.relays).toBeUndefined();

    // Seats polled all along: the promotion never lets the room hold more than its cap.
    let highest = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        highest = Math.max(highest, (await roomStats(room).catch(() => ({ seats: 0 }))).seats ?? 0);
        await sleep(100);
      }
    })();

    // The fourth seat promotes the room.
    const fourth = join(3);
    await fourth.conn.whenJoined();
    const promotedAt = performance.now();
    const ids = players.map((p) => p.welcomes[0]!.playerId);
    expect(new Set(ids).size).toBe(4);
    expect(await until(() => players.every((p) => p.welcomes.length === 2 && p.firstAfterWelcome.length === 2), 3 * BACK_WITHIN_MS), "every player was welcomed back").toBe(true);
    const backMs = players.map((p) => p.welcomes[1]!.at - promotedAt);
    console.log(`promoted at 4 seats: players back in their seats after ${backMs.map((ms) => ms.toFixed(0)).join(", ")} ms (slowest ${Math.max(...backMs).toFixed(0)} ms)`);
    expect(Math.max(...backMs)).toBeLessThanOrEqual(BACK_WITHIN_MS);
    for (const [i, p] of players.entries()) {
      // One close each, the one the SDK reconnects on at once; the same seat back.
      expect(closes[i]).toEqual([1001]);
      expect(p.welcomes[1]).toMatchObject({ playerId: ids[i], reconnected: true });
      expect(p.errors).toEqual([]);
      // Its cell goes on from the last one it was shown (the fourth may have been shown none:
      // its seat's welcome and the promotion are a turn apart).
      const before = p.lastSeenBefore(p.welcomes[1]!.at);
      if (i < 3) expect(before, `player ${i} saw its cell before the promotion`).toBeDefined();
      const after = p.firstAfterWelcome[1]!;
      if (before) expect(continues(before, after), `player ${i}: ${JSON.stringify(before)} then ${JSON.stringify(after)}`).toBe(true);
    }

    // A matchmade join of the promoted room lands through a relay.
    const m = matchmaker(server!.url);
    const fifth = await m.joinById(agarTypes, room, { name: "m5" });
    others.push(fifth);
    expect(fifth).toMatchObject({ status: "joined", room });

    // Frames go on, and tk:stats shows the room relayed: every socket on a relay.
    await sleep(1_500);
    const since = performance.now() - 1_000;
    for (const p of players) expect(p.seen.filter((s) => s.at > since).length).toBeGreaterThan(5);
    expect(fifth.stats.frames).toBeGreaterThan(5);
    polling = false;
    await poll;
    expect(highest).toBeLessThanOrEqual(cap);
    const relayed = await roomStats(room);
    expect(relayed).toMatchObject({ seats: 5, ccu: 5 });
    expect(relayed.adapter.relays).toBe(2);
    expect(relayed.adapter.sockets).toBe(0);
    expect(relayed.relays.map((r: any) => r.index).sort()).toEqual([0, 1]);
    expect(relayed.relays.reduce((n: number, r: any) => n + r.sockets, 0)).toBe(5);
    expect(relayed.adapter.relayObjects.reduce((n: number, r: any) => n + r.seated, 0)).toBe(5);

    // The promoted room's object restarting comes back relayed (its checkpoint says so): the
    // relays link again and keep their clients, who are welcomed back on the sockets they have.
    const downAt = performance.now();
    expect((await fetch(`${server!.url}/rooms/agar/${room}/abort`, { method: "POST" })).status).toBe(202);
    expect(await until(() => players.every((p) => p.welcomes.length === 3), 3 * BACK_WITHIN_MS), "every player was welcomed back after the restart").toBe(true);
    expect(Math.max(...players.map((p) => p.welcomes[2]!.at - downAt))).toBeLessThanOrEqual(BACK_WITHIN_MS);
    for (const [i, p] of players.entries()) {
      expect(closes[i]).toEqual([1001]);
      expect(p.welcomes[2]).toMatchObject({ playerId: ids[i], reconnected: true });
    }
    const restarted = await roomStats(room);
    expect(restarted).toMatchObject({ seats: 5 });
    expect(restarted.adapter.relays).toBe(2);
  }, 90_000);
});
