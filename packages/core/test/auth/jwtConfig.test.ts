import { describe, expect, it } from "vitest";
import { AuthConfigError, jwtConfigFromEnv, jwtVerifierFromEnv, resolveJwtConfig, type JwtEnv } from "../../src/auth";

const BASE: JwtEnv = { AUTH_JWKS_URL: "https://id.example/.well-known/jwks.json", AUTH_ISSUER: "https://id.example/", AUTH_AUDIENCE: "my-game" };

function problems(env: JwtEnv): readonly string[] {
  try {
    jwtConfigFromEnv(env);
  } catch (e) {
    expect(e).toBeInstanceOf(AuthConfigError);
    return (e as AuthConfigError).problems;
  }
  throw new Error("configuration was accepted");
}

describe("JWT sign-in configuration", () => {
  it("is off when no AUTH_* var is set (empty strings count as unset)", () => {
    expect(jwtConfigFromEnv({})).toBeNull();
    expect(jwtConfigFromEnv({ AUTH_JWKS_URL: "", AUTH_ISSUER: "" })).toBeNull();
    expect(jwtVerifierFromEnv({})).toBeNull();
  });

  it("fills the defaults: sub, the jwt: prefix, RS256/ES256/EdDSA, 60 s of skew", () => {
    expect(jwtConfigFromEnv(BASE)).toEqual({
      jwksUrl: new URL("https://id.example/.well-known/jwks.json"),
      issuers: ["https://id.example/"],
      audiences: ["my-game"],
      identityClaim: "sub",
      identityPrefix: "jwt:",
      algorithms: ["RS256", "ES256", "EdDSA"],
      clockSkewSeconds: 60,
      claims: [],
    });
  });

  it("reads AUTH_CLAIMS (the claims games get) as a list; alone it turns nothing on; a bad name is refused", () => {
    expect(jwtConfigFromEnv({ ...BASE, AUTH_CLAIMS: "name, roles,name" })?.claims).toEqual(["name", "roles"]);
    expect(jwtConfigFromEnv({ AUTH_CLAIMS: "name" })).toBeNull();
    expect(() => jwtConfigFromEnv({ ...BASE, AUTH_CLAIMS: "a b" })).toThrow(/AUTH_CLAIMS \(claims\): "a b" is not a claim name/);
    expect(() => jwtConfigFromEnv({ ...BASE, AUTH_CLAIMS: Array.from({ length: 17 }, (_, i) => `c${i}`).join(",") })).toThrow(/at most 16/);
  });

  it("reads lists comma-separated or as JSON arrays, numbers as strings or numbers, and * as any audience", () => {
    const config = jwtConfigFromEnv({
      ...BASE,
      AUTH_ISSUER: "https://a.example/, https://b.example/",
      AUTH_AUDIENCE: ["web", "ios"],
      AUTH_ALGORITHMS: "ES256,EdDSA,ES256",
      AUTH_IDENTITY_CLAIM: "player_id",
      AUTH_IDENTITY_PREFIX: "",
      AUTH_CLOCK_SKEW_SECONDS: "0",
    });
    expect(config).toMatchObject({ issuers: ["https://a.example/", "https://b.example/"], audiences: ["web", "ios"], algorithms: ["ES256", "EdDSA"], identityClaim: "player_id", identityPrefix: "", clockSkewSeconds: 0 });
    expect(jwtConfigFromEnv({ ...BASE, AUTH_AUDIENCE: "*", AUTH_CLOCK_SKEW_SECONDS: 120 })).toMatchObject({ audiences: null, clockSkewSeconds: 120 });
  });

  it("names every problem at once, by var", () => {
    const found = problems({ AUTH_ISSUER: "https://id.example/", AUTH_ALGORITHMS: "RS256,none", AUTH_CLOCK_SKEW_SECONDS: "1h", AUTH_IDENTITY_PREFIX: "my game:" });
    expect(found).toHaveLength(5);
    expect(found.join("\n")).toMatch(/AUTH_JWKS_URL .*required/);
    expect(found.join("\n")).toMatch(/AUTH_AUDIENCE .*required/);
    expect(found.join("\n")).toMatch(/AUTH_ALGORITHMS .*"none" is not one of/);
    expect(found.join("\n")).toMatch(/AUTH_CLOCK_SKEW_SECONDS .*whole number/);
    expect(found.join("\n")).toMatch(/AUTH_IDENTITY_PREFIX .*printable ASCII/);
    expect(() => jwtConfigFromEnv({ AUTH_AUDIENCE: "x" })).toThrow(/AUTH_JWKS_URL.*AUTH_ISSUER/);
  });

  it("refuses symmetric algorithms, saying why", () => {
    expect(problems({ ...BASE, AUTH_ALGORITHMS: "RS256,HS256" })).toEqual([expect.stringMatching(/HS256 is symmetric.*public key/)]);
    expect(() => resolveJwtConfig({ jwksUrl: "https://id.example/jwks", issuer: "i", audience: "a", algorithms: ["HS512"] })).toThrow(/HS512 is symmetric/);
    expect(problems({ ...BASE, AUTH_ALGORITHMS: " , " })).toEqual([expect.stringMatching(/names no algorithm/)]);
  });

  it("refuses a JWKS URL that is not https (http only on loopback), carries credentials, or is no URL", () => {
    expect(problems({ ...BASE, AUTH_JWKS_URL: "http://id.example/jwks.json" })).toEqual([expect.stringMatching(/https: URL/)]);
    expect(problems({ ...BASE, AUTH_JWKS_URL: "https://u:p@id.example/jwks.json" })).toEqual([expect.stringMatching(/credentials/)]);
    expect(problems({ ...BASE, AUTH_JWKS_URL: "id.example/jwks.json" })).toEqual([expect.stringMatching(/not a URL/)]);
    for (const host of ["127.0.0.1:8000", "localhost", "[::1]:9"]) expect(jwtConfigFromEnv({ ...BASE, AUTH_JWKS_URL: `http://${host}/jwks` })).not.toBeNull();
  });

  it("refuses * mixed with audiences, a skew out of range, and vars of the wrong type", () => {
    expect(problems({ ...BASE, AUTH_AUDIENCE: "*,web" })).toEqual([expect.stringMatching(/cannot be combined/)]);
    expect(problems({ ...BASE, AUTH_CLOCK_SKEW_SECONDS: 301 })).toEqual([expect.stringMatching(/0\.\.300/)]);
    expect(problems({ ...BASE, AUTH_ISSUER: 5 })).toEqual([expect.stringMatching(/AUTH_ISSUER .*string/), expect.stringMatching(/AUTH_ISSUER .*required/)]);
  });

  it("makes one verifier per configuration and reuses it (the key set lives in it)", () => {
    const a = jwtVerifierFromEnv(BASE);
    expect(jwtVerifierFromEnv({ ...BASE })).toBe(a);
    expect(jwtVerifierFromEnv({ ...BASE, AUTH_AUDIENCE: "other" })).not.toBe(a);
  });
});
