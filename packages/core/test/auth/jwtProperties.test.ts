import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJwtVerifier, type JwtVerifier } from "../../src/auth";
import { AUDIENCE, ISSUER, JwksServer, makeKey, sign, T0, type TestKey } from "./jwksServer";

// Whatever arrives as a token — random text, or a valid token with bytes changed, dropped,
// added or swapped — the verifier answers a verdict (never throws) and never accepts it.
const server = new JwksServer();
let keys: TestKey[];
let verifier: JwtVerifier;
let valid: string[];

beforeAll(async () => {
  keys = await Promise.all([makeKey("rs", "RS256"), makeKey("es", "ES256"), makeKey("ed", "EdDSA")]);
  server.publish(...keys);
  await server.start();
  // The clock never moves: one fetch, then the cooldown keeps made-up kids from refetching.
  verifier = createJwtVerifier({ jwksUrl: server.url, issuer: ISSUER, audience: AUDIENCE }, { now: () => T0 });
  valid = await Promise.all(keys.map((k) => sign(k, T0, { sub: `player-${k.kid}` })));
  for (const token of valid) expect((await verifier.verify(token)).ok).toBe(true);
});

afterAll(() => server.stop());

/** The same token for the verifier: same signed text, and a signature that decodes to the same bytes. */
function sameToken(a: string, b: string): boolean {
  const [ah, ap, as] = a.split(".");
  const [bh, bp, bs, ...rest] = b.split(".");
  if (rest.length > 0 || ah !== bh || ap !== bp || bs === undefined) return false;
  // base64url's last character carries unused bits: two spellings can decode to one signature.
  return /^[A-Za-z0-9_-]*$/.test(bs) && Buffer.from(as!, "base64url").equals(Buffer.from(bs, "base64url"));
}

const mutation = fc.oneof(
  fc.record({ op: fc.constant("replace" as const), at: fc.nat(), ch: fc.constantFrom(..."AZaz09-_.=+/ !\u00e9") }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), n: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), text: fc.string({ maxLength: 8 }) }),
  fc.record({ op: fc.constant("swap" as const), a: fc.integer({ min: 0, max: 2 }), b: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ op: fc.constant("splice" as const), from: fc.integer({ min: 0, max: 2 }), part: fc.integer({ min: 0, max: 2 }) }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function apply(token: string, m: Mutation, tokens: string[]): string {
  switch (m.op) {
    case "replace": {
      const i = m.at % token.length;
      return token.slice(0, i) + m.ch + token.slice(i + 1);
    }
    case "delete": {
      const i = m.at % token.length;
      return token.slice(0, i) + token.slice(i + m.n);
    }
    case "insert": {
      const i = m.at % (token.length + 1);
      return token.slice(0, i) + m.text + token.slice(i);
    }
    case "swap": {
      const parts = token.split(".");
      [parts[m.a], parts[m.b]] = [parts[m.b]!, parts[m.a]!];
      return parts.join(".");
    }
    case "splice": {
      // A segment taken from another provider key's token: header, claims or signature.
      const parts = token.split(".");
      parts[m.part] = tokens[m.from]!.split(".")[m.part]!;
      return parts.join(".");
    }
  }
}

describe("JWT verifier: hostile tokens", () => {
  it("never throws and never accepts random text", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 300 }), fc.stringMatching(/^[A-Za-z0-9_-]{0,60}\.[A-Za-z0-9_-]{0,60}\.[A-Za-z0-9_-]{0,90}$/)),
        async (text) => {
          const verdict = await verifier.verify(text);
          expect(verdict.ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never throws and never accepts a mutated valid token", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (which, mutations) => {
        const original = valid[which]!;
        const mutated = mutations.reduce((t, m) => apply(t, m, valid), original);
        fc.pre(!sameToken(original, mutated));
        const verdict = await verifier.verify(mutated);
        expect(verdict.ok).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});
