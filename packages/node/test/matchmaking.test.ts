/**
 * Matchmaking on the Node host: the host-independent suite (test/matchmaking/suite.ts) against
 * `serveRooms` with every game kind, then what needs a game of the test's own (a short seat
 * reservation): a join whose reservation expired makes the SDK match again, never retry the room.
 */
import { gameDefinitions } from "@tikron/games";
import { agarTypes } from "@tikron/games/schemas";
import { matchmaker } from "@tikron/client";
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
