/**
 * A restart of the runtime under a live room (what a deploy or an eviction does to a Durable
 * Object): `wrangler dev` is stopped mid-game and started again on the same port. Sockets drop;
 * clients reconnect with their old token and their ticket to the fresh instance, are seated
 * (never refused) and play on.
 *
 * The restarted server gets a fresh persistence directory (the harness picks one per start), so
 * nothing here relies on persisted state: game state is in memory by design and is not expected
 * to survive (see AGENTS.md, "Restarts and what survives").
 */
import { CloseCode } from "@tikron/protocol";
import { mintRoomTicket } from "@tikron/cloudflare/ticket";
import { afterAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { LivePlayer, sleep } from "./hardeningClient";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";

const SECRET = "restart-ticket-secret-0123456789";
const servers: WranglerDevServer[] = [];
let worker: FrozenWorker | undefined;

afterAll(async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
  worker?.remove();
});

async function start(port?: number): Promise<WranglerDevServer> {
  worker ??= await freezeWorker("wrangler.jsonc");
  const s = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: SECRET }, ...(port ? { port } : {}) });
  servers.push(s);
  return s;
}

describe("runtime restart under a live room", () => {
  it("clients reconnect with their token to the fresh instance, get a fresh seat and play on", async () => {
    const first = await start();
    const tickets = await Promise.all(["alice", "bob"].map((p) => mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "restart1", playerId: p, ttlSeconds: 600 })));
    const url = (i: number) => `${first.wsUrl}/rooms/agar/restart1?ticket=${tickets[i]}`;
    const before = [await LivePlayer.join(url(0), { name: "alice" }), await LivePlayer.join(url(1), { name: "bob" })];
    for (const p of before) p.startSteering();
    await sleep(500);
    for (const p of before) expect(p.frameTimes.length).toBeGreaterThan(3);

    await first.stop();
    for (const p of before) await p.waitClosed(10_000);
    for (const p of before) expect(p.closed, "socket still open after the runtime stopped").not.toBeNull();
    expect(before.map((p) => p.closed!.code)).not.toContain(CloseCode.normal);

    const second = await start(first.port);
    expect(second.port).toBe(first.port);

    // Each client comes back the way the SDK does: same URL, same ticket, its old token.
    const after = await Promise.all(before.map((p, i) => LivePlayer.join(url(i), { name: ["alice", "bob"][i]!, token: p.welcome!.token })));
    for (const [i, p] of after.entries()) {
      expect(p.closed, "a reconnect to the restarted room was refused").toBeNull();
      expect(p.welcome).toMatchObject({ reconnected: false, lastSeq: 0, roomKind: "agar" });
      expect(p.welcome!.token).not.toBe(before[i]!.welcome!.token);
      expect(p.welcome!.roomEpoch).toBeGreaterThan(before[i]!.welcome!.roomEpoch);
    }
    expect(new Set(after.map((p) => p.welcome!.playerId)).size).toBe(2);

    for (const p of after) p.startSteering();
    await sleep(1_000);
    for (const p of after) {
      expect(p.errors).toEqual([]);
      expect(p.closed).toBeNull();
      expect(p.frameTimes.length).toBeGreaterThan(10);
    }
    const snap = await after[0]!.requestStats();
    expect(snap).toMatchObject({ ccu: 2, seats: 2, joins: 2, reconnects: 0 });
    expect(snap.inputs.processed).toBeGreaterThan(10);

    // A second reconnect inside the window is an ordinary one again: same seat, same player.
    after[1]!.close();
    await sleep(200);
    const again = await LivePlayer.join(url(1), { name: "bob", token: after[1]!.welcome!.token });
    expect(again.welcome).toMatchObject({ reconnected: true, playerId: after[1]!.welcome!.playerId });
    await Promise.all([after[0]!.leave(), again.leave()]);
  });
});
