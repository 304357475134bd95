import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJwtVerifier, identifyCaller, identifyReservedJoin, type JwtVerifier } from "../../src/auth";
import { mintRoomTicket } from "../../src/ticket";
import { AUDIENCE, ISSUER, JwksServer, makeKey, sign, T0, type TestKey } from "./jwksServer";

const SECRET = "test-secret-0123456789abcdef";
const server = new JwksServer();
let key: TestKey;
let jwt: JwtVerifier;

beforeAll(async () => {
  key = await makeKey("k1", "ES256");
  await server.start();
  server.publish(key);
  jwt = createJwtVerifier({ jwksUrl: server.url, issuer: ISSUER, audience: AUDIENCE }, { now: () => T0 });
});
afterAll(() => server.stop());

const need = { secret: SECRET, kind: "agar", roomId: "r1" };
const ticket = (playerId: string, roomId = "r1", seat?: string) => mintRoomTicket({ secret: SECRET, kind: "agar", roomId, playerId, ttlSeconds: 600, ...(seat ? { seat } : {}) });
const req = (path: string, authorization?: string) => ({ url: `https://game.example${path}`, headers: new Headers(authorization ? { authorization } : {}) });

/** The join's other credentials by the production rule (required), counting how often it is asked. */
function production(r: ReturnType<typeof req>, roomId = "r1") {
  const asked = { n: 0 };
  const other = () => {
    asked.n++;
    return identifyCaller(r, { ticket: { secret: SECRET, kind: "agar", roomId }, jwt, required: true });
  };
  return { other, asked };
}

describe("a join naming a seat reservation: one identity per join", () => {
  it("takes the reservation alone without asking the host's credential rule", async () => {
    const res = await ticket("alice", "r1", "seat-0123456789abcd");
    const r = req(`/rooms/agar/r1?reservation=${res}`);
    const { other, asked } = production(r);
    expect(await identifyReservedJoin(r, res, need, other)).toEqual({ ok: true, identity: "alice", reservation: "seat-0123456789abcd" });
    expect(asked.n).toBe(0);
  });

  it("refuses a reservation sent with another player's ticket or sign-in token, unauthorized with the reason", async () => {
    const res = await ticket("alice", "r1", "seat-0123456789abcd");
    const mallory = await ticket("mallory");
    const token = await sign(key, T0, { sub: "mallory" });
    for (const r of [req(`/rooms/agar/r1?reservation=${res}&ticket=${mallory}`), req(`/rooms/agar/r1?reservation=${res}`, `Bearer ${mallory}`), req(`/rooms/agar/r1?reservation=${res}&token=${token}`), req(`/rooms/agar/r1?reservation=${res}`, `Bearer ${token}`)]) {
      const v = await identifyReservedJoin(r, res, need, production(r).other);
      expect(v).toMatchObject({ ok: false, reason: "two_identities", status: 401, message: expect.stringMatching(/held for another player/) });
    }
  });

  it("lets the same player's own ticket ride along, and refuses a bad one next to a good reservation", async () => {
    const res = await ticket("alice", "r1", "seat-0123456789abcd");
    const own = req(`/rooms/agar/r1?reservation=${res}&ticket=${await ticket("alice")}`);
    expect(await identifyReservedJoin(own, res, need, production(own).other)).toMatchObject({ ok: true, identity: "alice" });
    const forged = (await ticket("alice")).slice(0, -2) + "AA";
    const bad = req(`/rooms/agar/r1?reservation=${res}&ticket=${forged}`);
    expect(await identifyReservedJoin(bad, res, need, production(bad).other)).toMatchObject({ ok: false, reason: "bad_signature", status: 401 });
    // A ticket for another room is no credential for this join either.
    const elsewhere = req(`/rooms/agar/r1?reservation=${res}&ticket=${await ticket("alice", "r2")}`);
    expect(await identifyReservedJoin(elsewhere, res, need, production(elsewhere).other)).toMatchObject({ ok: false, reason: "wrong_room" });
  });

  it("refuses a reservation for another room, a plain ticket passed as one, and one signed with another secret", async () => {
    const r = req("/rooms/agar/r1");
    const other = production(r).other;
    expect(await identifyReservedJoin(r, await ticket("alice", "r2", "seat-0123456789abcd"), need, other)).toMatchObject({ ok: false, reason: "wrong_room", status: 401 });
    expect(await identifyReservedJoin(r, await ticket("alice"), need, other)).toMatchObject({ ok: false, reason: "not_a_reservation", status: 401 });
    const foreign = await mintRoomTicket({ secret: "another-secret-0123456789", kind: "agar", roomId: "r1", playerId: "alice", ttlSeconds: 60, seat: "seat-0123456789abcd" });
    expect(await identifyReservedJoin(r, foreign, need, other)).toMatchObject({ ok: false, reason: "bad_signature", status: 401 });
  });

  it("in DEV_MODE a credential the host does not verify names nobody: the reservation decides", async () => {
    const res = await ticket("alice", "r1", "seat-0123456789abcd");
    const r = req(`/rooms/agar/r1?reservation=${res}&token=${await sign(key, T0, { sub: "mallory" })}`);
    const dev = () => identifyCaller(r, { ticket: null, jwt: null, required: false });
    expect(await identifyReservedJoin(r, res, need, dev)).toMatchObject({ ok: true, identity: "alice" });
  });
});
