/**
 * Matchmaking under a real `wrangler dev` (staging config, DEV_MODE): the host-independent suite
 * (test/matchmaking/suite.ts, also run against the Node host), then what is workerd's own: the
 * matchmaker is a Durable Object that keeps its directory in storage, so a forced restart of it
 * loses no room and no seated player, and requests in flight get a retryable answer.
 */
import { JoinError, matchmaker, party, type PartyView } from "@tikron/client";
import { ANY_ROOM, mintRoomTicket } from "@tikron/cloudflare/ticket";
import { agarTypes } from "@tikron/games/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeMatchmaking } from "../../../test/matchmaking/suite";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";

let server: WranglerDevServer | undefined;

beforeAll(async () => {
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
});

afterAll(async () => {
  await server?.stop();
});

describeMatchmaking("wrangler dev (Durable Objects)", () => server!.url);

describe("the matchmaker object restarting", () => {
  it("a forced restart mid-arrivals loses no room and no seated player; requests in flight are answered retryably", async () => {
    const base = `${server!.url}?cap=4`;
    const m = matchmaker(base);
    const first = await Promise.all(Array.from({ length: 6 }, (_, i) => m.joinOrCreate(agarTypes, { name: `a${i}` })));
    const rooms = new Set(first.map((c) => c.room));
    // Restart while more players arrive: their requests may hit the object as it resets.
    const arriving = Array.from({ length: 6 }, (_, i) => m.joinOrCreate(agarTypes, { name: `b${i}` }));
    const restarted = await fetch(`${server!.url}/match/agar/restart`, { method: "POST" });
    expect(restarted.status).toBe(200);
    const later = await Promise.all(arriving);
    const all = [...first, ...later];
    for (const c of all) expect(c.status).toBe("joined");
    // Every room is known after the restart, and no room holds more than its cap.
    const stats = (await (await fetch(`${server!.url}/match/agar/stats`)).json()) as { directory: { roomId: string; clients: number; maxClients: number }[] }[];
    const known = new Map(stats[0]!.directory.map((r) => [r.roomId, r]));
    for (const id of rooms) expect(known.has(id), `room ${id} lost by the restart`).toBe(true);
    const perRoom = new Map<string, number>();
    for (const c of all) perRoom.set(c.room, (perRoom.get(c.room) ?? 0) + 1);
    for (const n of perRoom.values()) expect(n).toBeLessThanOrEqual(4);
    // Nobody seated before the restart lost the seat.
    for (const c of first) expect(c.status).toBe("joined");
    // A request that meets the object resetting is answered 503 unavailable with a retry hint.
    const raw = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        if (i === 1) await fetch(`${server!.url}/match/agar/restart`, { method: "POST" });
        return fetch(`${server!.url}/match/agar?cap=4`, { method: "POST", body: "{}" });
      }),
    );
    for (const r of raw) {
      expect([200, 503]).toContain(r.status);
      if (r.status === 503) expect(await r.json()).toMatchObject({ code: "unavailable", retryAfterMs: 500 });
    }
    for (const c of all) c.close();
  });

  it("a party forming across a restart keeps its code and members (kept in the object's storage), and is matched after it", async () => {
    const m = matchmaker(`${server!.url}?cap=15`);
    const lead = await party(m, agarTypes, { name: "a" });
    const b = await party(m, agarTypes, { code: lead.code, name: "b" });
    expect((await fetch(`${server!.url}/match/agar/restart`, { method: "POST" })).status).toBe(200);
    const after = (await (await fetch(`${server!.url}/match/agar/party/${lead.code}?member=${lead.view.member}`)).json()) as PartyView;
    expect(after).toMatchObject({ state: "open", members: [{ name: "a" }, { name: "b" }] });
    // A start may meet the object still coming back: the answer is then retryable.
    let matched: PartyView | undefined;
    for (let i = 0; i < 5 && !matched; i++) matched = await lead.start().catch((e: unknown) => (e instanceof JoinError && e.code === "unavailable" ? undefined : Promise.reject(e)));
    expect(matched?.state).toBe("matched");
    const [x, y] = await Promise.all([lead.join(), b.join()]);
    expect(y.room).toBe(x.room);
    x.close();
    y.close();
  });
});

describe("matchmaking with the production config (match tickets)", () => {
  const SECRET = "match-integration-secret-0123456789";
  let prod: WranglerDevServer | undefined;
  let worker: FrozenWorker | undefined;
  beforeAll(async () => {
    worker = await freezeWorker("wrangler.jsonc");
    prod = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: SECRET } });
  });
  afterAll(async () => {
    await prod?.stop();
    worker?.remove();
  });
  const ticket = (playerId: string) => mintRoomTicket({ secret: SECRET, kind: "agar", roomId: ANY_ROOM, playerId, ttlSeconds: 600 });

  it("a player without a match ticket is refused 401; with one it is seated, bound to its identity, and rejoins its own seat with the reservation", async () => {
    await expect(matchmaker(prod!.url).joinOrCreate(agarTypes)).rejects.toMatchObject({ code: "unauthorized" });
    const ann = await matchmaker(prod!.url, { ticket: () => ticket("ann") }).joinOrCreate(agarTypes, { name: "ann" });
    expect(ann.status).toBe("joined");
    const seat = ann.playerId;
    const bob = await matchmaker(prod!.url, { ticket: await ticket("bob") }).joinOrCreate(agarTypes, { name: "bob" });
    expect(bob.room).toBe(ann.room);
    expect(bob.playerId).not.toBe(seat);
    // A drop: the connection comes back with the same reservation token (now its ticket) to its own seat.
    ann.reconnect();
    await ann.whenJoined();
    expect(ann.playerId).toBe(seat);
    expect(ann.welcome?.reconnected).toBe(true);
    ann.close();
    bob.close();
  });

  it("party members are identities: each seat is bound to its member's ticket, and no other ticket acts as that member", async () => {
    const ann = await party(matchmaker(prod!.url, { ticket: () => ticket("ann") }), agarTypes, { name: "ann" });
    await expect(party(matchmaker(prod!.url), agarTypes, { code: ann.code })).rejects.toMatchObject({ code: "unauthorized" });
    const bob = await party(matchmaker(prod!.url, { ticket: () => ticket("bob") }), agarTypes, { code: ann.code, name: "bob" });
    // Eve knows ann's member id (it leaked): her own ticket does not make her ann.
    const asEve = await fetch(`${prod!.url}/match/agar/party/${ann.code}?member=${ann.view.member}`, { method: "DELETE", headers: { authorization: `Bearer ${await ticket("eve")}` } });
    expect(asEve.status).toBe(404);
    await ann.start();
    const [a, b] = await Promise.all([ann.join({ name: "ann" }), bob.join({ name: "bob" })]);
    expect(b.room).toBe(a.room);
    expect(a.playerId).not.toBe(b.playerId);
    a.close();
    b.close();
  });

  it("a ticket for one room does not buy a match: unauthorized, as it would be on connect", async () => {
    const roomTicket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "eve", ttlSeconds: 600 });
    const err = await matchmaker(prod!.url, { ticket: roomTicket }).joinOrCreate(agarTypes).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JoinError);
    expect(err).toMatchObject({ code: "unauthorized" });
  });
});
