import fc from "fast-check";
import type { JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthConfigError } from "../../src/auth";
import { ACCESS_JWT_HEADER, adminAuthFromEnv, checkAdmin, sameSecret, type AdminAuth } from "../../src/admin";
import { JwksServer, makeKey, sign, type TestKey } from "../auth/jwksServer";

const TOKEN = "admin-token-0123456789abcdef-xyz";
const server = new JwksServer();
let key: TestKey;
let team: string;
const AUD = "access-app-aud-tag";

beforeAll(async () => {
  key = await makeKey("access-1", "RS256");
  await server.start();
  server.publish(key);
  // The team domain is the issuer; its keys are at /cdn-cgi/access/certs (the test server answers any path).
  team = server.url.replace("/.well-known/jwks.json", "");
});
afterAll(() => server.stop());

const req = (headers: Record<string, string> = {}) => ({ url: "https://game.example/admin/api/rooms", headers: new Headers(headers) });

describe("the admin credential", () => {
  it("lets the admin token in (actor token), refuses a wrong one and none alike (401 unauthorized)", async () => {
    const auth = adminAuthFromEnv({ ADMIN_TOKEN: TOKEN });
    expect(await checkAdmin(req({ authorization: `Bearer ${TOKEN}` }), auth)).toEqual({ ok: true, actor: "token" });
    expect(await checkAdmin(req({ authorization: `Bearer ${TOKEN}x` }), auth)).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(await checkAdmin(req({ authorization: `Bearer ${TOKEN.slice(0, -1)}` }), auth)).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(await checkAdmin(req(), auth)).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(await checkAdmin(req({ authorization: `Basic ${TOKEN}` }), auth)).toMatchObject({ ok: false, error: { code: "unauthorized" } });
  });

  it("answers every request 503 when nothing is configured, and refuses a token too short at startup", async () => {
    const none = adminAuthFromEnv({});
    expect(await checkAdmin(req({ authorization: `Bearer ${TOKEN}` }), none)).toMatchObject({ ok: false, error: { code: "unavailable" } });
    expect(() => adminAuthFromEnv({ ADMIN_TOKEN: "short" })).toThrow(AuthConfigError);
    expect(() => adminAuthFromEnv({ ADMIN_ACCESS_AUD: AUD })).toThrow(/both ADMIN_ACCESS_TEAM_DOMAIN and ADMIN_ACCESS_AUD/);
    expect(() => adminAuthFromEnv({ ADMIN_ACCESS_TEAM_DOMAIN: "http://team.example.com", ADMIN_ACCESS_AUD: AUD })).toThrow(/https/);
  });

  it("lets in a person Cloudflare Access signed in (actor access:<email>), verified like a provider's JWT", async () => {
    const auth = adminAuthFromEnv({ ADMIN_ACCESS_TEAM_DOMAIN: `${team}/`, ADMIN_ACCESS_AUD: AUD });
    const now = Date.now();
    const good = await sign(key, now, { iss: team, aud: [AUD], email: "ops@studio.example", sub: "u-1" });
    expect(await checkAdmin(req({ [ACCESS_JWT_HEADER]: good }), auth)).toEqual({ ok: true, actor: "access:ops@studio.example" });
    const bad: Array<[string, JWTPayload]> = [
      ["another application", { iss: team, aud: ["other-app"], email: "ops@studio.example" }],
      ["another team", { iss: "https://other.cloudflareaccess.com", aud: [AUD], email: "ops@studio.example" }],
      ["expired", { iss: team, aud: [AUD], email: "ops@studio.example", exp: Math.floor(now / 1000) - 3600 }],
      ["no email", { iss: team, aud: [AUD] }],
    ];
    for (const [why, claims] of bad) {
      const token = await sign(key, now, claims);
      expect(await checkAdmin(req({ [ACCESS_JWT_HEADER]: token }), auth), why).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    }
    // An Access assertion to a server that only has a token, and a token to one that only has Access.
    expect(await checkAdmin(req({ [ACCESS_JWT_HEADER]: good }), adminAuthFromEnv({ ADMIN_TOKEN: TOKEN }))).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(await checkAdmin(req({ authorization: `Bearer ${TOKEN}` }), auth)).toMatchObject({ ok: false, error: { code: "unauthorized" } });
  });

  it("keeps one verifier per configuration", () => {
    const a: AdminAuth = adminAuthFromEnv({ ADMIN_ACCESS_TEAM_DOMAIN: team, ADMIN_ACCESS_AUD: AUD });
    expect(adminAuthFromEnv({ ADMIN_ACCESS_TEAM_DOMAIN: team, ADMIN_ACCESS_AUD: AUD })).toBe(a);
  });

  it("compares secrets whole: equal strings and only those", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (a, b) => {
        expect(await sameSecret(a, b)).toBe(a === b);
        expect(await sameSecret(a, a)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
