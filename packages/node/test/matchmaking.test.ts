/**
 * Matchmaking on the Node host: the host-independent suite (test/matchmaking/suite.ts) against
 * `serveRooms` with every game kind, then what needs a game of the test's own (a short seat
 * reservation): a join whose reservation expired makes the SDK match again, never retry the room;
 * a matchmaker's room restarted from its checkpoint comes back with the cap it was made with.
 */
import { gameDefinitions } from "@tikron/games";
import { agarTypes } from "@tikron/games/schemas";
import { connect, matchmaker } from "@tikron/client";
import type { RoomCheckpoint } from "@tikron/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRooms, type RoomServer } from "../src";
import { describeMatchmaking } from "../../../test/matchmaking/suite";

let server: RoomServer | undefined;
beforeAll(async () => {
  server = await serveRooms({ games: gameDefinitions });
});
afterAll(async () => {
  await server?.close();
});

describeMatchmaking("the Node host", () => server!.httpUrl);

describe("matchmaking on the Node host: reservations", () => {
  const games = { agar: { ...gameDefinitions.agar!, defaults: { ...gameDefinitions.agar!.defaults, cap: 2 }, matchmaking: { reservationTtlMs: 300 } } };
  let short: RoomServer | undefined;
  beforeAll(async () => {
    short = await serveRooms({ games });
  });
  afterAll(async () => {
    await short?.close();
  });

  it("an unused reservation frees its seat after its lifetime; joining with it then is refused 4020 and the SDK matches again", async () => {
    const stale = (await (await fetch(`${short!.httpUrl}/match/agar`, { method: "POST", body: "{}" })).json()) as { roomId: string; url: string };
    const stats = async () => (await (await fetch(`${short!.httpUrl}/rooms/agar/${stale.roomId}/stats`)).json()) as { reservations: { pending: number; expired: number } };
    expect((await stats()).reservations.pending).toBe(1);
    await new Promise((r) => setTimeout(r, 450));
    expect((await stats()).reservations).toMatchObject({ pending: 0, expired: 1 });
    // The first answer the client gets is the stale one: the room refuses it, the client matches again.
    let calls = 0;
    const replay: typeof fetch = async (input, init) => {
      if (calls++ === 0) return new Response(JSON.stringify(stale), { status: 200, headers: { "content-type": "application/json" } });
      return fetch(input, init);
    };
    const conn = await matchmaker(short!.httpUrl, { fetch: replay }).joinOrCreate(agarTypes, { name: "late" });
    expect(calls).toBe(2);
    expect(conn.status).toBe("joined");
    const after = (await (await fetch(`${short!.httpUrl}/rooms/agar/${conn.room}/stats`)).json()) as { reservations: { invalid: number; used: number } };
    expect(after.reservations.used).toBe(1);
    const first = (await stats()) as unknown as { reservations: { invalid: number } };
    expect(first.reservations.invalid).toBe(1);
    conn.close();
  });
});

describe("matchmaking on the Node host: a restart", () => {
  it("a matchmaker's 8-seat room restarted from its checkpoint comes back with cap 8 (not the kind's 20) and refuses a 9th seat", async () => {
    const checkpoints = new Map<string, RoomCheckpoint>();
    const first = await serveRooms({ games: gameDefinitions, checkpoints });
    const conn = await matchmaker(`${first.httpUrl}?cap=8`).joinOrCreate(agarTypes, { name: "kept", reconnect: { baseMs: 50, maxMs: 200, maxAttempts: 40 } });
    try {
      const roomId = conn.room;
      expect(first.room("agar", roomId)!.status().maxClients).toBe(8);
      await first.close(500);
      expect(checkpoints.get(`agar:${roomId}`)?.madeWith).toEqual({ options: { cap: 8 }, params: {} });

      const second = await serveRooms({ games: gameDefinitions, checkpoints, port: first.port });
      try {
        // The reconnect's join URL carries no overrides: the room is made as it was kept.
        expect((await conn.whenJoined()).reconnected).toBe(true);
        const room = second.room("agar", roomId)!;
        expect(room.status()).toMatchObject({ maxClients: 8, overrides: "cap=8|" });
        const others = await Promise.all(Array.from({ length: 7 }, (_, i) => connect(second.url, { game: agarTypes, room: roomId, name: `n${i}`, reconnect: false }).whenJoined().then(() => i)));
        expect(others).toHaveLength(7);
        const ninth = connect(second.url, { game: agarTypes, room: roomId, name: "ninth", reconnect: false });
        await expect(ninth.whenJoined()).rejects.toMatchObject({ code: "room_full" });
      } finally {
        await second.close(200);
      }
    } finally {
      conn.close();
    }
  });
});
