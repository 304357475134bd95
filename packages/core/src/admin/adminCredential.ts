/**
 * Who may use the admin API: the holder of a secret admin token (`Authorization: Bearer`), or a
 * person Cloudflare Access let through to it (its signed `Cf-Access-Jwt-Assertion`, verified
 * against the team's keys the way provider JWTs are). Every admin path asks here before it does
 * anything, including telling a caller that a path does not exist.
 */
import { adminError, type AdminError } from "@tikron/protocol";
import { AuthConfigError } from "../auth/jwtConfig";
import { createJwtVerifier, type JwtVerifier } from "../auth/jwtVerifier";
import type { IdentifyRequest } from "../auth/identify";

/** The header Cloudflare Access puts its signed assertion in. */
export const ACCESS_JWT_HEADER = "cf-access-jwt-assertion";

/** Shortest admin token accepted: anything shorter is refused at startup, not guessed at. */
export const MIN_ADMIN_TOKEN_LENGTH = 24;

/** The Worker vars (or Node options) the admin credential reads. */
export interface AdminEnv {
  /** The admin token (`wrangler secret put ADMIN_TOKEN`; at least {@link MIN_ADMIN_TOKEN_LENGTH} characters). */
  ADMIN_TOKEN?: unknown;
  /** The Access team domain, e.g. `https://example.cloudflareaccess.com` (its tokens' issuer; keys at `/cdn-cgi/access/certs`). */
  ADMIN_ACCESS_TEAM_DOMAIN?: unknown;
  /** The Access application's audience (AUD) tag. */
  ADMIN_ACCESS_AUD?: unknown;
}

/** What the admin API accepts; made by {@link adminAuthFromEnv} (or by hand on the Node host). */
export interface AdminAuth {
  /** The admin token, or null for none. */
  readonly token: string | null;
  /** Verifies Access assertions, or null for none. */
  readonly access: JwtVerifier | null;
}

/** The verdict on an admin request: who is asking (for the audit log), or the refusal. */
export type AdminVerdict =
  | {
      /** Let in. */
      ok: true;
      /** `token`, or `access:<email>`. */
      actor: string;
    }
  | {
      /** Refused. */
      ok: false;
      /**
       * `unauthorized` (401: no credential, or one that is wrong, refused or of a kind not
       * configured here: one refusal, as joins and match requests answer a bad credential) or
       * `unavailable` (503: the admin API is not configured, or Access cannot be checked now).
       */
      error: AdminError;
    };

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const fromEnv = new Map<string, AdminAuth>();

/**
 * The admin credentials the vars describe: the token, and an Access verifier when both Access
 * vars are set (made once per configuration, so the team's keys are fetched once per isolate).
 * Throws {@link AuthConfigError} for a token too short or half an Access configuration.
 */
export function adminAuthFromEnv(env: AdminEnv): AdminAuth {
  const token = text(env.ADMIN_TOKEN);
  const team = text(env.ADMIN_ACCESS_TEAM_DOMAIN)?.replace(/\/+$/, "");
  const aud = text(env.ADMIN_ACCESS_AUD);
  const key = JSON.stringify([token, team, aud]);
  const known = fromEnv.get(key);
  if (known) return known;
  const problems: string[] = [];
  if (token !== undefined && token.length < MIN_ADMIN_TOKEN_LENGTH) problems.push(`ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (use 32 random bytes)`);
  if ((team === undefined) !== (aud === undefined)) problems.push("set both ADMIN_ACCESS_TEAM_DOMAIN and ADMIN_ACCESS_AUD, or neither");
  let access: JwtVerifier | null = null;
  if (problems.length === 0 && team !== undefined && aud !== undefined) {
    try {
      access = createJwtVerifier({ jwksUrl: `${team}/cdn-cgi/access/certs`, issuer: team, audience: aud, identityClaim: "email", identityPrefix: "access:", algorithms: ["RS256"] });
    } catch (e) {
      if (!(e instanceof AuthConfigError)) throw e;
      problems.push(...e.problems.map((p) => `ADMIN_ACCESS_TEAM_DOMAIN / ADMIN_ACCESS_AUD: ${p}`));
    }
  }
  if (problems.length > 0) throw new AuthConfigError(problems);
  const auth: AdminAuth = { token: token ?? null, access };
  if (fromEnv.size >= 8) fromEnv.clear();
  fromEnv.set(key, auth);
  return auth;
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

/**
 * Checks an admin request's credential: a Bearer token against the admin token (constant time),
 * else an Access assertion against the team's keys. Never throws for what a caller sends.
 */
export async function checkAdmin(request: IdentifyRequest, auth: AdminAuth): Promise<AdminVerdict> {
  if (auth.token === null && auth.access === null) return { ok: false, error: adminError("unavailable", "the admin API is not configured on this server (ADMIN_TOKEN or Cloudflare Access)") };
  const bearer = BEARER.exec(request.headers?.get("authorization") ?? "")?.[1];
  if (bearer !== undefined) {
    if (auth.token !== null && (await sameSecret(bearer, auth.token))) return { ok: true, actor: "token" };
    return { ok: false, error: adminError("unauthorized", "the admin token is wrong") };
  }
  const assertion = request.headers?.get(ACCESS_JWT_HEADER);
  if (assertion) {
    if (!auth.access) return { ok: false, error: adminError("unauthorized", "Cloudflare Access is not configured for the admin API") };
    const verdict = await auth.access.verify(assertion);
    if (verdict.ok) return { ok: true, actor: verdict.identity };
    if (verdict.reason === "jwks_unavailable") return { ok: false, error: adminError("unavailable", "the Access keys cannot be had right now; try again shortly") };
    return { ok: false, error: adminError("unauthorized", `the Access assertion was refused (${verdict.reason})`) };
  }
  return { ok: false, error: adminError("unauthorized", "the admin API needs a credential: Authorization: Bearer <ADMIN_TOKEN>, or a Cloudflare Access sign-in") };
}

const encoder = new TextEncoder();

/**
 * Whether two secrets are equal, in time that does not depend on where they differ: both are
 * hashed (SHA-256, so their lengths stop mattering too) and every byte of the digests compared.
 */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([crypto.subtle.digest("SHA-256", encoder.encode(a)), crypto.subtle.digest("SHA-256", encoder.encode(b))]);
  const p = new Uint8Array(x);
  const q = new Uint8Array(y);
  let diff = 0;
  for (let i = 0; i < p.length; i++) diff |= p[i]! ^ q[i]!;
  return diff === 0;
}
