import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJwtVerifier, guestIdentity, identify, identifyCaller, readCredential, type IdentifyOptions, type JwtVerifier } from "../../src/auth";
import { ANY_ROOM, mintRoomTicket } from "../../src/ticket";
import { AUDIENCE, ISSUER, JwksServer, makeKey, sign, T0, type TestKey } from "./jwksServer";

const SECRET = "test-secret-0123456789abcdef";
const server = new JwksServer();
let key: TestKey;
let jwt: JwtVerifier;
let ticketOnly: IdentifyOptions;
let both: IdentifyOptions;

function req(path: string, authorization?: string) {
  return { url: `https://game.example${path}`, headers: new Headers(authorization ? { authorization } : {}) };
}

beforeAll(async () => {
  key = await makeKey("k1", "ES256");
  await server.start();
  server.publish(key);
  jwt = createJwtVerifier({ jwksUrl: server.url, issuer: ISSUER, audience: AUDIENCE }, { now: () => T0 });
  ticketOnly = { ticket: { secret: SECRET, kind: "agar", roomId: "r1", nowMs: T0 } };
  both = { ...ticketOnly, jwt };
});

afterAll(() => server.stop());

describe("identify: a join's identity from a room ticket or a provider's JWT", () => {
  it("verifies a room ticket from ?ticket= and names its player", async () => {
    const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "alice", ttlSeconds: 60, nowMs: T0 });
    expect(await identify(req(`/rooms/agar/r1?ticket=${ticket}`), both)).toMatchObject({ ok: true, via: "ticket", identity: "alice", credential: ticket, claims: { roomId: "r1" } });
    const other = await identify(req(`/rooms/agar/r2?ticket=${ticket}`), { ticket: { ...ticketOnly.ticket!, roomId: "r2" } });
    expect(other).toEqual({ ok: false, via: "ticket", reason: "wrong_room", status: 401, message: "room ticket is for another room" });
  });

  it("verifies a JWT from Authorization: Bearer or from ?token=", async () => {
    const token = await sign(key, T0, { sub: "bob" });
    for (const r of [req("/rooms/agar/r1", `Bearer ${token}`), req("/rooms/agar/r1", `bearer  ${token} `), req(`/rooms/agar/r1?token=${token}`)]) {
      expect(await identify(r, both)).toMatchObject({ ok: true, via: "jwt", identity: "jwt:bob", credential: token, claims: { sub: "bob" } });
    }
    // A Node host hands over a path and no Headers object.
    expect(await identify({ url: `/rooms/agar/r1?token=${token}` }, { jwt })).toMatchObject({ ok: true, identity: "jwt:bob" });
  });

  it("refuses a JWT with its reason, status and a message that carries none of the token's claims", async () => {
    const verdict = await identify(req("/r", `Bearer ${await sign(key, T0, { sub: "carol", iss: "https://evil.example/" })}`), both);
    expect(verdict).toMatchObject({ ok: false, via: "jwt", reason: "wrong_issuer", status: 401, message: "sign-in token is from another issuer" });
    expect(verdict.ok === false && verdict.message).not.toMatch(/evil|carol/);
  });

  it("answers 401 without a credential, naming what this host accepts", async () => {
    expect(await identify(req("/r"), both)).toMatchObject({ ok: false, via: null, reason: "missing", status: 401, message: expect.stringMatching(/room ticket .* or a sign-in token/) });
    expect(await identify(req("/r"), { jwt })).toMatchObject({ status: 401, message: expect.stringMatching(/^a sign-in token is required/) });
    expect(await identify(req("/r"), ticketOnly)).toMatchObject({ status: 401, message: "a room ticket is required (?ticket=)" });
  });

  it("treats a kind of credential the host does not accept as none", async () => {
    const token = await sign(key, T0);
    expect(await identify(req(`/r?token=${token}`), ticketOnly)).toMatchObject({ ok: false, reason: "missing", status: 401, detail: "sign-in tokens are not accepted here" });
    expect(await identify(req("/r?ticket=abc.def"), { jwt })).toMatchObject({ ok: false, reason: "missing", status: 401, detail: "room tickets are not accepted here" });
  });

  it("refuses a request with two credentials instead of guessing which was meant", async () => {
    const token = await sign(key, T0);
    const other = await sign(key, T0, { sub: "someone-else" });
    expect(readCredential(req(`/r?ticket=t&token=${token}`))).toBe("ambiguous");
    expect(readCredential(req(`/r?token=${token}`, `Bearer ${other}`))).toBe("ambiguous");
    expect(readCredential(req(`/r?token=${token}`, `Bearer ${token}`))).toEqual({ kind: "jwt", value: token });
    expect(readCredential(req("/r", "Basic dXNlcjpwYXNz"))).toBeNull();
    expect(await identify(req(`/r?ticket=t`, `Bearer ${token}`), both)).toMatchObject({ ok: false, via: null, reason: "malformed", status: 401 });
  });

  it("answers 503 when the provider's keys cannot be had, so clients retry instead of giving up", async () => {
    const down = createJwtVerifier({ jwksUrl: "http://127.0.0.1:1/jwks.json", issuer: ISSUER, audience: AUDIENCE }, { now: () => T0 });
    const verdict = await identify(req("/r", `Bearer ${await sign(key, T0)}`), { jwt: down });
    expect(verdict).toMatchObject({ ok: false, via: "jwt", reason: "jwks_unavailable", status: 503 });
  });

  it("reads a Bearer value shaped like a room ticket as a ticket (match tickets travel there), anything else as a JWT", async () => {
    const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: ANY_ROOM, playerId: "alice", ttlSeconds: 60, nowMs: T0 });
    const token = await sign(key, T0);
    expect(readCredential(req("/match/agar", `Bearer ${ticket}`))).toEqual({ kind: "ticket", value: ticket });
    expect(readCredential(req("/match/agar", `Bearer ${token}`))).toEqual({ kind: "jwt", value: token });
    expect(readCredential(req(`/match/agar?ticket=${ticket}`, `Bearer ${ticket}`))).toEqual({ kind: "ticket", value: ticket });
    expect(readCredential(req(`/match/agar?token=${token}`, `Bearer ${ticket}`))).toBe("ambiguous");
    expect(readCredential(req(`/match/agar?ticket=x.y`, `Bearer ${ticket}`))).toBe("ambiguous");
    const match = { ticket: { secret: SECRET, kind: "agar", roomId: [ANY_ROOM, "r9"], nowMs: T0 }, jwt };
    expect(await identify(req("/match/agar", `Bearer ${ticket}`), match)).toMatchObject({ ok: true, via: "ticket", identity: "alice" });
  });
});

describe("identifyCaller: the one rule of every host", () => {
  it("required: a verified credential or a refusal; a host that accepts none refuses everyone with 503", async () => {
    const token = await sign(key, T0, { sub: "bob" });
    expect(await identifyCaller(req(`/r?token=${token}`), { ...both, required: true })).toMatchObject({ ok: true, via: "jwt", identity: "jwt:bob" });
    expect(await identifyCaller(req("/r"), { ...both, required: true })).toMatchObject({ ok: false, reason: "missing", status: 401 });
    expect(await identifyCaller(req(`/r?token=${token}`), { required: true })).toEqual({ ok: false, via: null, reason: "unconfigured", status: 503, message: "sign-in is not configured on this server" });
    expect(await identifyCaller(req(`/r?token=${token}`), { ...ticketOnly, required: true })).toMatchObject({ ok: false, reason: "missing", status: 401 });
  });

  it("optional: no credential is an anonymous caller, but one that is sent is checked when its kind is accepted", async () => {
    const anonymous = { ok: true, via: null, identity: null };
    expect(await identifyCaller(req("/r"), { required: false })).toEqual(anonymous);
    expect(await identifyCaller(req("/r"), { ...both, required: false })).toEqual(anonymous);
    const expired = await sign(key, T0 - 3_600_000);
    expect(await identifyCaller(req(`/r?token=${expired}`), { ...both, required: false })).toMatchObject({ ok: false, reason: "expired", status: 401 });
    // A token to a host without JWT sign-in: not checked, so not held against the caller.
    expect(await identifyCaller(req(`/r?token=${expired}`), { ...ticketOnly, required: false })).toEqual(anonymous);
    expect(await identifyCaller(req(`/r?token=${await sign(key, T0)}`), { ...both, required: false })).toMatchObject({ ok: true, identity: "jwt:user-1" });
  });

  it("optional: an anonymous caller that sends a guest key is that key's guest, the same identity every time; required: no guest", async () => {
    const key = "k".repeat(16) + "-guest_1";
    const a = await identifyCaller(req(`/r?guest=${key}`), { required: false });
    expect(a).toEqual({ ok: true, via: null, identity: await guestIdentity(key) });
    expect((a as { identity: string }).identity).toMatch(/^guest-[A-Za-z0-9_-]{16}$/);
    expect(await identifyCaller(req(`/match/ttt-json?guest=${key}`), { ...both, required: false })).toEqual(a);
    expect(await guestIdentity("another-key-0000000")).not.toBe((a as { identity: string }).identity);
    // A key that is not one (too short, other characters) is no guest.
    for (const bad of ["short", "k".repeat(15), "k".repeat(16) + "!", "k".repeat(129)]) expect(await identifyCaller(req(`/r?guest=${encodeURIComponent(bad)}`), { required: false })).toEqual({ ok: true, via: null, identity: null });
    // Where a credential is required a guest key buys nothing.
    expect(await identifyCaller(req(`/r?guest=${key}`), { ...both, required: true })).toMatchObject({ ok: false, reason: "missing", status: 401 });
  });
});

