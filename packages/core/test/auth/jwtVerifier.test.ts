import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createJwtVerifier, JWKS_COOLDOWN_MS, JWKS_MAX_AGE_MS, JWKS_STALE_IF_ERROR_MS, type JwtVerifier, type JwtConfigInput } from "../../src/auth";
import { AUDIENCE, b64json, ISSUER, JwksServer, makeKey, sign, T0, type TestKey } from "./jwksServer";

// The JWT matrix: every way a token can be wrong is refused with its own reason, against a real
// JWKS server on loopback and keys made in the test.
const server = new JwksServer();
let rs: TestKey, es: TestKey, ed: TestKey, ghost: TestKey, next: TestKey;
let now = T0;
let attempts = 0;

function verifier(overrides: Partial<JwtConfigInput> = {}): JwtVerifier {
  return createJwtVerifier(
    { jwksUrl: server.url, issuer: ISSUER, audience: AUDIENCE, ...overrides },
    {
      now: () => now,
      fetch: (url, init) => {
        attempts++;
        return fetch(url, init);
      },
    },
  );
}

beforeAll(async () => {
  [rs, es, ed, ghost, next] = await Promise.all([
    makeKey("rs-1", "RS256"),
    makeKey("es-1", "ES256"),
    makeKey("ed-1", "EdDSA"),
    makeKey("ghost", "RS256"),
    makeKey("rs-2", "RS256"),
  ]);
  await server.start();
});

afterAll(() => server.stop());

beforeEach(async () => {
  now = T0;
  attempts = 0;
  server.mode = "ok";
  server.publish(rs, es, ed);
  await server.start(); // a test may have stopped it
});

describe("JWT verifier: valid tokens", () => {
  it.each(["RS256", "ES256", "EdDSA"] as const)("accepts a valid %s token and names the player by sub, namespaced", async (alg) => {
    const key = { RS256: rs, ES256: es, EdDSA: ed }[alg];
    const v = verifier();
    const verdict = await v.verify(await sign(key, now, { sub: "auth0|alice" }));
    expect(verdict).toMatchObject({ ok: true, identity: "jwt:auth0|alice", claims: { sub: "auth0|alice", iss: ISSUER, aud: AUDIENCE } });
  });

  it("hands games the claims the configuration names (AUTH_CLAIMS), present ones only, in order, within 512 bytes of JSON", async () => {
    const token = await sign(rs, now, { sub: "alice", name: "Alice B.", roles: ["mod", "beta"], email: "a@example.com", bio: "x".repeat(600) });
    expect(await verifier().verify(token)).toMatchObject({ ok: true, playerClaims: {} });
    const v = await verifier({ claims: ["name", "roles", "missing", "bio"] }).verify(token);
    // `bio` alone would pass the bound: left out, the others kept.
    expect(v).toMatchObject({ ok: true, identity: "jwt:alice", playerClaims: { name: "Alice B.", roles: ["mod", "beta"] } });
    expect(Object.keys((v as { playerClaims: object }).playerClaims)).toEqual(["name", "roles"]);
  });

  it("takes the identity from the configured claim, with the configured prefix (or none)", async () => {
    const token = await sign(rs, now, { sub: "s-1", player_id: "p-42" });
    expect(await verifier({ identityClaim: "player_id", identityPrefix: "acme:" }).verify(token)).toMatchObject({ ok: true, identity: "acme:p-42" });
    expect(await verifier({ identityPrefix: "" }).verify(token)).toMatchObject({ ok: true, identity: "s-1" });
  });

  it("accepts any of several issuers and audiences, and no audience at all when the audience is *", async () => {
    const v = verifier({ issuer: ["https://other.example/", ISSUER], audience: ["web", AUDIENCE] });
    expect((await v.verify(await sign(rs, now))).ok).toBe(true);
    expect((await v.verify(await sign(rs, now, { aud: ["web", "ios"] }))).ok).toBe(true);
    const anyAudience = verifier({ audience: "*" });
    expect((await anyAudience.verify(await sign(rs, now, { aud: undefined }))).ok).toBe(true);
  });

  it("tries each published key that fits a token without kid", async () => {
    server.publish(rs, next, es);
    const v = verifier();
    expect(await v.verify(await sign(next, now, { sub: "no-kid" }, { kid: undefined }))).toMatchObject({ ok: true, identity: "jwt:no-kid" });
    expect(await v.verify(await sign(ghost, now, {}, { kid: undefined }))).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  it("fetches the key set once for a burst of joins on a cold start", async () => {
    const v = verifier();
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => sign(i % 2 ? rs : es, now, { sub: `u${i}` })));
    const verdicts = await Promise.all(tokens.map((t) => v.verify(t)));
    expect(verdicts.every((x) => x.ok)).toBe(true);
    expect(attempts).toBe(1);
  });
});

describe("JWT verifier: the matrix of refusals", () => {
  it("refuses an expired token, and accepts one within the clock skew", async () => {
    const v = verifier({ clockSkewSeconds: 30 });
    const exp = Math.floor(now / 1000) - 10;
    expect((await v.verify(await sign(rs, now - 700_000, { exp })))).toMatchObject({ ok: true });
    const long = await sign(rs, now - 700_000, { exp: exp - 30 });
    expect(await v.verify(long)).toMatchObject({ ok: false, reason: "expired" });
  });

  it("refuses a token that is not valid yet (nbf beyond the skew)", async () => {
    const v = verifier({ clockSkewSeconds: 30 });
    const s = Math.floor(now / 1000);
    expect(await v.verify(await sign(rs, now, { nbf: s + 31 }))).toMatchObject({ ok: false, reason: "not_yet_valid" });
    expect((await v.verify(await sign(rs, now, { nbf: s + 29 }))).ok).toBe(true);
  });

  it("refuses a token from another issuer", async () => {
    expect(await verifier().verify(await sign(rs, now, { iss: "https://evil.example/" }))).toMatchObject({ ok: false, reason: "wrong_issuer" });
    expect(await verifier().verify(await sign(rs, now, { iss: undefined }))).toMatchObject({ ok: false, reason: "wrong_issuer" });
  });

  it("refuses a token for another audience, or for none", async () => {
    expect(await verifier().verify(await sign(rs, now, { aud: "another-game" }))).toMatchObject({ ok: false, reason: "wrong_audience" });
    expect(await verifier().verify(await sign(rs, now, { aud: undefined }))).toMatchObject({ ok: false, reason: "wrong_audience" });
  });

  it("refuses a token signed by a key the provider does not publish, and a flood of them costs the provider one fetch per cooldown", async () => {
    const v = verifier();
    expect((await v.verify(await sign(rs, now))).ok).toBe(true);
    expect(attempts).toBe(1);
    now += JWKS_COOLDOWN_MS; // the first unknown kid may refetch
    const forged = await Promise.all(Array.from({ length: 30 }, (_, i) => sign(ghost, now, { sub: `x${i}` }, { kid: `made-up-${i}` })));
    const verdicts = await Promise.all(forged.map((t) => v.verify(t)));
    expect(verdicts.map((x) => (x.ok ? "ok" : x.reason))).toEqual(Array(30).fill("unknown_key"));
    expect(attempts).toBe(2);
    expect(server.hits).toBeGreaterThan(0);
    // Within the cooldown: refused without asking the provider again.
    expect(await v.verify(await sign(ghost, now))).toMatchObject({ ok: false, reason: "unknown_key" });
    expect(attempts).toBe(2);
  });

  it("follows a key rotation: the new kid verifies after a refresh, the old kid is refused once it is gone", async () => {
    const v = verifier();
    const old = await sign(rs, now);
    expect((await v.verify(old)).ok).toBe(true);
    server.publish(next, es, ed); // rs-1 retired, rs-2 in
    now += JWKS_COOLDOWN_MS + 1;
    expect(await v.verify(await sign(next, now, { sub: "rotated" }))).toMatchObject({ ok: true, identity: "jwt:rotated" });
    expect(attempts).toBe(2);
    expect(await v.verify(await sign(rs, now))).toMatchObject({ ok: false, reason: "unknown_key" });
  });

  it("refuses alg none, with or without a signature", async () => {
    const payload = b64json({ iss: ISSUER, aud: AUDIENCE, sub: "mallory", exp: Math.floor(now / 1000) + 600 });
    const v = verifier();
    for (const token of [`${b64json({ alg: "none", typ: "JWT" })}.${payload}.`, `${b64json({ alg: "none", kid: "rs-1" })}.${payload}.c2ln`, `${b64json({ typ: "JWT" })}.${payload}.`]) {
      expect(await v.verify(token)).toMatchObject({ ok: false, reason: "bad_algorithm" });
    }
    expect(attempts).toBe(0); // refused before any key was looked up
  });

  it("refuses an HS256 token signed with the RSA public key (HS/RS confusion)", async () => {
    const v = verifier();
    const header = b64json({ alg: "HS256", typ: "JWT", kid: "rs-1" });
    const payload = b64json({ iss: ISSUER, aud: AUDIENCE, sub: "mallory", exp: Math.floor(now / 1000) + 600 });
    for (const secret of [rs.publicPem, JSON.stringify(rs.publicJwk), rs.publicJwk.n!]) {
      const mac = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
      expect(await v.verify(`${header}.${payload}.${mac}`)).toMatchObject({ ok: false, reason: "bad_algorithm" });
    }
    expect(attempts).toBe(0);
  });

  it("refuses an algorithm it was not configured for, even one a published key could verify", async () => {
    const v = verifier({ algorithms: ["ES256"] });
    expect(await v.verify(await sign(rs, now))).toMatchObject({ ok: false, reason: "bad_algorithm" });
    expect((await v.verify(await sign(es, now))).ok).toBe(true);
  });

  it("refuses a tampered token (bad_signature) and one signed by another key under a published kid", async () => {
    const v = verifier();
    const [h, , s] = (await sign(rs, now, { sub: "alice" })).split(".");
    const forgedPayload = b64json({ iss: ISSUER, aud: AUDIENCE, sub: "admin", exp: Math.floor(now / 1000) + 600 });
    expect(await v.verify(`${h}.${forgedPayload}.${s}`)).toMatchObject({ ok: false, reason: "bad_signature" });
    expect(await v.verify(await sign(ghost, now, {}, { kid: "rs-1" }))).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  it("refuses tokens that are not compact JWTs, or lack exp, as malformed; no token as missing", async () => {
    const v = verifier();
    expect(await v.verify(undefined)).toEqual({ ok: false, reason: "missing" });
    expect(await v.verify("")).toEqual({ ok: false, reason: "missing" });
    const good = await sign(rs, now);
    for (const bad of ["abc", "a.b", `${good}.x.y`, `${good} `, "x".repeat(9000), `!${good}`]) {
      expect(await v.verify(bad)).toMatchObject({ ok: false, reason: "malformed" });
    }
    expect(await v.verify(await sign(rs, now, { exp: undefined }))).toMatchObject({ ok: false, reason: "malformed" });
    expect(await v.verify(`${b64json({ alg: "RS256", kid: "rs-1" })}.${b64json([1, 2])}.${good.split(".")[2]}`)).toMatchObject({ ok: false });
  });

  it("refuses a token whose identity claim is missing, not a string, or no valid player id", async () => {
    const v = verifier();
    for (const sub of [undefined, 42, "has space", "x".repeat(125), "tab\there"]) {
      expect(await v.verify(await sign(rs, now, { sub } as Record<string, unknown>))).toMatchObject({ ok: false, reason: "bad_identity" });
    }
    expect((await v.verify(await sign(rs, now, { sub: "x".repeat(124) }))).ok).toBe(true); // 4 + 124 = 128
  });
});

describe("JWT verifier: the provider's key set", () => {
  it("answers jwks_unavailable when the provider is down and no key set was ever fetched", async () => {
    await server.stop();
    const verdict = await verifier().verify(await sign(rs, now));
    expect(verdict).toMatchObject({ ok: false, reason: "jwks_unavailable" });
    expect(verdict.ok === false && verdict.detail).toMatch(/fetch failed|ECONNREFUSED/);
  });

  it.each([
    ["error", /HTTP 500/],
    ["not_json", /JSON/],
    ["redirect", /HTTP 302.*redirect/],
  ] as const)("answers jwks_unavailable when the provider answers %s", async (mode, detail) => {
    server.mode = mode;
    const verdict = await verifier().verify(await sign(rs, now));
    expect(verdict).toMatchObject({ ok: false, reason: "jwks_unavailable" });
    expect(verdict.ok === false && verdict.detail).toMatch(detail);
  });

  it("keeps verifying with the cached keys while the provider is down, asking it at most once per cooldown, until the stale window ends", async () => {
    const v = verifier();
    expect((await v.verify(await sign(rs, now))).ok).toBe(true);
    await server.stop();
    now += JWKS_MAX_AGE_MS + 1; // old: a refresh is due, and fails
    expect((await v.verify(await sign(es, now))).ok).toBe(true);
    expect(attempts).toBe(2);
    for (let i = 0; i < 10; i++) expect((await v.verify(await sign(ed, now))).ok).toBe(true);
    expect(attempts).toBe(2); // the cooldown holds the retries back
    // A kid the cached set does not hold cannot be checked while the provider is down.
    now += JWKS_COOLDOWN_MS;
    expect(await v.verify(await sign(next, now))).toMatchObject({ ok: false, reason: "jwks_unavailable" });
    now = T0 + JWKS_MAX_AGE_MS + JWKS_STALE_IF_ERROR_MS + 1;
    expect(await v.verify(await sign(rs, now))).toMatchObject({ ok: false, reason: "jwks_unavailable" });
    // The provider is back: the next attempt after the cooldown fetches and verifies again.
    await server.start();
    now += JWKS_COOLDOWN_MS;
    expect((await v.verify(await sign(rs, now))).ok).toBe(true);
  });

  it("refreshes a key set older than its max age even when the token's key is in it", async () => {
    const v = verifier();
    expect((await v.verify(await sign(rs, now))).ok).toBe(true);
    server.publish(es, ed); // rs-1 revoked
    now += JWKS_MAX_AGE_MS;
    expect(await v.verify(await sign(rs, now))).toMatchObject({ ok: false, reason: "unknown_key" });
    expect(attempts).toBe(2);
  });
});
