/**
 * A restart of the runtime under a live room (what a deploy or an eviction does to a Durable
 * Object): `wrangler dev` is stopped mid-game and started again on the same port with the same
 * state directory, as Durable Object storage survives in production. Sockets drop; clients
 * reconnect with their old token and their ticket, and the room, rebuilt from its checkpoint,
 * gives each its own seat back (`reconnected: true`, same player id) and a turn-based game its
 * board (see AGENTS.md, "Restarts and what survives"), and every seat its player's record: the
 * game sees the same identity, sign-in claims and join options after the restart. A matchmaker's
 * room comes back made as it was (core roomMadeWith.ts): an 8-seat agar room (`?cap=8`, DEV_MODE)
 * is still 8 seats to the room and to its listing, and refuses a 9th.
 */
import { CloseCode } from "@tikron/protocol";
import { matchmaker } from "@tikron/client";
import { agarTypes } from "@tikron/games/schemas";
import { mintRoomTicket } from "@tikron/cloudflare/ticket";
import { afterAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { LivePlayer, sleep } from "./hardeningClient";
import { JsonClient, until } from "../../../test/roomProtocol/jsonClient";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";
import { AUDIENCE, ISSUER, JwksServer, makeKey, sign, type TestKey } from "../../../packages/core/test/auth/jwksServer";

const SECRET = "restart-ticket-secret-0123456789";
const servers: WranglerDevServer[] = [];
let worker: FrozenWorker | undefined;
/** The game's sign-in provider: a JWKS on 127.0.0.1 with a key made here (players may sign in with a JWT). */
const jwks = new JwksServer();
let key: TestKey | undefined;

afterAll(async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
  worker?.remove();
  await jwks.stop();
});

/** The first start keeps its state directory; a restart (`after`) reuses it on the same port. */
async function start(after?: WranglerDevServer): Promise<WranglerDevServer> {
  worker ??= await freezeWorker("wrangler.jsonc");
  if (!key) {
    key = await makeKey("restart-1", "ES256");
    await jwks.start();
    jwks.publish(key);
  }
  const s = await startWranglerDev({
    config: worker.configPath,
    // DEV_MODE for the matchmaker's `?cap=8`; every join here still carries its credential.
    vars: { DEV_MODE: "true", TICKET_SECRET: SECRET, AUTH_JWKS_URL: jwks.url, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE, AUTH_CLAIMS: "name" },
    ...(after ? { port: after.port, persistDir: after.persistDir } : { keepState: true }),
  });
  servers.push(s);
  return s;
}

describe("runtime restart under a live room", () => {
  it("clients reconnect to the restarted room into their own seats within 5 s and play on; a matchmaker's 8-seat room comes back with cap 8", async () => {
    const first = await start();
    // A matchmaker's 8-seat room, its player on the SDK (which reconnects by itself).
    const matched = await matchmaker(`${first.url}?cap=8`).joinOrCreate(agarTypes, { name: "matched", reconnect: { baseMs: 100, maxMs: 500, maxAttempts: 100 } });
    const matchRoom = matched.room;
    const matchStats = async (s: WranglerDevServer) => (await (await fetch(`${s.url}/rooms/agar/${matchRoom}/stats`)).json()) as { cap: number; seats: number; restoredSeats: number };
    expect((await matchStats(first)).cap).toBe(8);
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

    const second = await start(first);
    expect(second.port).toBe(first.port);

    // Each client comes back the way the SDK does: same URL, same ticket, its old token.
    const t0 = performance.now();
    const after = await Promise.all(before.map((p, i) => LivePlayer.join(url(i), { name: ["alice", "bob"][i]!, token: p.welcome!.token })));
    const backInMs = performance.now() - t0;
    for (const [i, p] of after.entries()) {
      expect(p.closed, "a reconnect to the restarted room was refused").toBeNull();
      expect(p.welcome).toMatchObject({ reconnected: true, playerId: before[i]!.welcome!.playerId, token: before[i]!.welcome!.token, roomKind: "agar" });
      expect(p.welcome!.roomEpoch).toBeGreaterThan(before[i]!.welcome!.roomEpoch);
    }
    expect(backInMs).toBeLessThan(5_000);

    for (const p of after) p.startSteering();
    await sleep(1_000);
    for (const p of after) {
      expect(p.errors).toEqual([]);
      expect(p.closed).toBeNull();
      expect(p.frameTimes.length).toBeGreaterThan(10);
    }
    const snap = await after[0]!.requestStats();
    expect(snap).toMatchObject({ ccu: 2, seats: 2, reconnects: 2, restoredSeats: 2 });
    expect(snap.inputs.processed).toBeGreaterThan(10);

    // A second reconnect inside the window is an ordinary one again: same seat, same player.
    after[1]!.close();
    await sleep(200);
    const again = await LivePlayer.join(url(1), { name: "bob", token: after[1]!.welcome!.token });
    expect(again.welcome).toMatchObject({ reconnected: true, playerId: after[1]!.welcome!.playerId });
    await Promise.all([after[0]!.leave(), again.leave()]);

    // The matchmaker's room: its player back in its seat through a join URL with no overrides,
    // the room made as it was kept: cap 8 in its stats and in its listing, the 9th seat refused.
    expect((await matched.whenJoined()).reconnected).toBe(true);
    expect(await matchStats(second)).toMatchObject({ cap: 8, seats: 1, restoredSeats: 1 });
    // Listed as the room says it is (its report after the restart; before the fix: cap 20, no overrides key).
    let listed: { roomId: string; maxClients: number } | undefined;
    for (let end = Date.now() + 5_000; Date.now() < end && listed?.maxClients !== 8; await sleep(100)) {
      listed = ((await (await fetch(`${second.url}/match/agar/rooms?cap=8`)).json()) as { roomId: string; maxClients: number }[]).find((r) => r.roomId === matchRoom);
    }
    expect(listed?.maxClients).toBe(8);
    const others = await Promise.all(Array.from({ length: 7 }, (_, i) => LivePlayer.join(`${second.wsUrl}/rooms/agar/${matchRoom}`, { name: `n${i}` })));
    for (const p of others) expect(p.welcome, "a seat under the cap was refused").not.toBeNull();
    const ninth = await LivePlayer.join(`${second.wsUrl}/rooms/agar/${matchRoom}`, { name: "ninth" });
    await ninth.waitClosed(5_000);
    expect(ninth.welcome).toBeNull();
    expect(ninth.closed?.code).toBe(CloseCode.room_full);
    matched.close();
    await Promise.all(others.map((p) => p.leave()));
  });

  it("a turn-based game resumes on the same board after a restart, each player the same to the game (identity, sign-in claims, join options)", async () => {
    const first = await start();
    // Xena signs in with the provider's JWT (its name claim handed to games: AUTH_CLAIMS), otto with a ticket.
    const credentials = [`token=${await sign(key!, Date.now(), { sub: "xena", name: "Xena W.", email: "x@example.com" })}`, `ticket=${await mintRoomTicket({ secret: SECRET, kind: "ttt-json", roomId: "restart2", playerId: "otto", ttlSeconds: 600 })}`];
    const url = (i: number) => `${first.wsUrl}/rooms/ttt-json/restart2?${credentials[i]}`;
    const x = new JsonClient(url(0));
    const o = new JsonClient(url(1));
    const wx = await x.join("xena", "", { mark: "X" });
    const wo = await o.join("otto");
    const records = [await x.request("whoami", 1), await o.request("whoami", 1)];
    expect(records).toEqual([
      { playerId: wx.playerId, name: "xena", identity: "jwt:xena", claims: { name: "Xena W." }, options: { mark: "X" } },
      { playerId: wo.playerId, name: "otto", identity: "otto", claims: {}, options: {} },
    ]);
    expect(await until(() => o.state()?.seats.X?.name === "Xena W.")).toBe(true);
    x.input({ cell: 0 });
    expect(await until(() => o.messages.some((m) => m.t === "state" && m.state?.turn === "O"))).toBe(true);
    o.input({ cell: 4 });
    expect(await until(() => x.messages.some((m) => m.t === "state" && m.state?.turn === "X" && m.state.board[4] === "O"))).toBe(true);
    await sleep(300); // the checkpoint is written right after the move; give the write a moment

    await first.stop();
    await until(() => x.closed !== null && o.closed !== null, 10_000);
    await start(first);

    const t0 = performance.now();
    const x2 = new JsonClient(url(0));
    const o2 = new JsonClient(url(1));
    const [rx, ro] = await Promise.all([x2.join("xena", wx.token), o2.join("otto", wo.token)]);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(rx).toMatchObject({ reconnected: true, playerId: wx.playerId, lastSeq: 1 });
    expect(ro).toMatchObject({ reconnected: true, playerId: wo.playerId, lastSeq: 1 });
    // The room kept each seat's record: the restored game sees the same players.
    expect([await x2.request("whoami", 2), await o2.request("whoami", 2)]).toEqual(records);
    // X plays on from where the game was: seq 2 on X's own seat, the old board underneath.
    x2.seq = 1;
    x2.input({ cell: 8 });
    const board = () => o2.messages.filter((m) => m.t === "state" && m.state).at(-1)?.state?.board;
    expect(await until(() => board()?.[8] === "X")).toBe(true);
    expect(board()).toEqual(["X", null, null, null, "O", null, null, null, "X"]);
    expect(x2.messages.filter((m) => m.t === "error")).toEqual([]);
    x2.close();
    o2.close();
  });
});
