/**
 * Verifies a provider's JWT and names the player it is for. The order matters: the token's shape
 * and `alg` are checked before any key is looked up (so `alg: none` and an HS256 token signed
 * with the public key never reach a key), the signature before any claim is believed, and only
 * then expiry, not-before, issuer and audience. Crypto and JOSE parsing are jose's.
 */
import { decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from "jose";
import { TICKET_PLAYER_ID_PATTERN } from "../ticket";
import { pickClaims, type PlayerClaims } from "../player";
import { JwksCache, errorLine, type JwksCacheOptions } from "./jwksCache";
import { jwtConfigFromEnv, resolveJwtConfig, type JwtConfig, type JwtConfigInput, type JwtEnv } from "./jwtConfig";

/** Longest token accepted; anything longer is malformed before it is parsed. */
export const MAX_JWT_LENGTH = 8192;

/** Why a JWT was refused. */
export type JwtRefusal =
  | "missing"
  | "malformed"
  | "bad_signature"
  | "expired"
  | "not_yet_valid"
  | "wrong_issuer"
  | "wrong_audience"
  | "unknown_key"
  | "bad_algorithm"
  | "jwks_unavailable"
  | "bad_identity";

/** Result of {@link JwtVerifier.verify}. */
export type JwtVerdict =
  | {
      /** The token is valid. */
      ok: true;
      /** The player's identity: the configured prefix + the identity claim's value. */
      identity: string;
      /** The verified claims. */
      claims: JWTPayload;
      /** The claims the configuration hands games (`claims`), bounded (core `pickClaims`). */
      playerClaims: PlayerClaims;
    }
  | {
      /** Refused. */
      ok: false;
      /** Why. */
      reason: JwtRefusal;
      /** One line for the server's log (never for the client: it may echo the token's claims). */
      detail?: string;
    };

/** Verifies tokens of one provider; made by {@link createJwtVerifier}. */
export interface JwtVerifier {
  /** The configuration it verifies against. */
  readonly config: JwtConfig;
  /** Verifies one token. Never throws, whatever the token holds. */
  verify(token: string | null | undefined): Promise<JwtVerdict>;
}

/** Test seams and key-set tuning of {@link createJwtVerifier}. */
export type JwtVerifierOptions = JwksCacheOptions;

/** Compact JWS: three base64url segments (a JWE has five and is refused here). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Keys tried for a token without `kid` that several keys could have signed. */
const MAX_CANDIDATE_KEYS = 8;
const UNKNOWN_KEY = Symbol("unknown key");

/**
 * A verifier for one provider. `config` is a validated {@link JwtConfig} (from
 * `jwtConfigFromEnv`) or the fields a host passes in code (validated here; throws
 * `AuthConfigError`). Keep one per configuration for the life of the process or isolate: it
 * holds the provider's key set.
 */
export function createJwtVerifier(config: JwtConfig | JwtConfigInput, options: JwtVerifierOptions = {}): JwtVerifier {
  const resolved = "issuers" in config ? config : resolveJwtConfig(config);
  const jwks = new JwksCache(resolved.jwksUrl, options);
  const now = options.now ?? Date.now;
  const algorithms: readonly string[] = resolved.algorithms;

  const attempt = async (token: string, getKey: JWTVerifyGetKey): Promise<JwtVerdict | typeof UNKNOWN_KEY> => {
    const verifyOptions: JWTVerifyOptions = {
      algorithms: [...resolved.algorithms],
      issuer: [...resolved.issuers],
      clockTolerance: resolved.clockSkewSeconds,
      currentDate: new Date(now()),
      requiredClaims: ["exp"],
    };
    if (resolved.audiences) verifyOptions.audience = [...resolved.audiences];
    try {
      const { payload } = await jwtVerify(token, getKey, verifyOptions);
      return identityOf(payload, resolved);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === "ERR_JWKS_NO_MATCHING_KEY") return UNKNOWN_KEY;
      if (code === "ERR_JWKS_MULTIPLE_MATCHING_KEYS") return tryEach(token, err as unknown as AsyncIterable<Awaited<ReturnType<JWTVerifyGetKey>>>);
      return refusal(err);
    }
  };

  // A token without `kid` that several keys of the set could have signed: jose hands over the
  // candidates and each is tried, a bounded number of times.
  const tryEach = async (token: string, candidates: AsyncIterable<Awaited<ReturnType<JWTVerifyGetKey>>>): Promise<JwtVerdict> => {
    let last: JwtVerdict = { ok: false, reason: "bad_signature" };
    let tried = 0;
    for await (const key of candidates) {
      if (++tried > MAX_CANDIDATE_KEYS) break;
      const verdict = await attempt(token, () => key);
      if (verdict === UNKNOWN_KEY) continue;
      if (verdict.ok || verdict.reason !== "bad_signature") return verdict;
      last = verdict;
    }
    return last;
  };

  return {
    config: resolved,
    async verify(token) {
      if (token === null || token === undefined || token === "") return { ok: false, reason: "missing" };
      if (typeof token !== "string" || token.length > MAX_JWT_LENGTH || !COMPACT_JWS.test(token)) return { ok: false, reason: "malformed" };
      let alg: unknown;
      try {
        alg = decodeProtectedHeader(token).alg;
      } catch (err) {
        return { ok: false, reason: "malformed", detail: errorLine(err) };
      }
      if (typeof alg !== "string" || !algorithms.includes(alg)) {
        return { ok: false, reason: "bad_algorithm", detail: `alg ${JSON.stringify(alg)} is not one of ${algorithms.join(", ")}` };
      }
      const set = await jwks.current();
      if (!set) return { ok: false, reason: "jwks_unavailable", detail: jwks.lastError ?? undefined };
      const first = await attempt(token, set.getKey);
      if (first !== UNKNOWN_KEY) return first;
      const refresh = await jwks.refreshAfterMiss(set);
      if (refresh === "failed") return { ok: false, reason: "jwks_unavailable", detail: jwks.lastError ?? undefined };
      const latest = jwks.latest;
      if (refresh === "cooling" || !latest) return { ok: false, reason: "unknown_key", detail: "no key in the provider's key set matches the token's kid and alg" };
      const second = await attempt(token, latest.getKey);
      return second === UNKNOWN_KEY ? { ok: false, reason: "unknown_key", detail: "no key in the refreshed key set matches the token's kid and alg" } : second;
    },
  };
}

function identityOf(claims: JWTPayload, config: JwtConfig): JwtVerdict {
  const value = claims[config.identityClaim];
  if (typeof value !== "string") return { ok: false, reason: "bad_identity", detail: `claim ${config.identityClaim} is not a string` };
  const identity = config.identityPrefix + value;
  if (!TICKET_PLAYER_ID_PATTERN.test(identity)) {
    return { ok: false, reason: "bad_identity", detail: `${config.identityClaim} does not make a player id (1-128 printable ASCII characters without spaces, prefix included)` };
  }
  return { ok: true, identity, claims, playerClaims: pickClaims(claims, config.claims) };
}

function refusal(err: unknown): JwtVerdict {
  const detail = errorLine(err);
  switch ((err as { code?: unknown }).code) {
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return { ok: false, reason: "bad_signature", detail };
    case "ERR_JWT_EXPIRED":
      return { ok: false, reason: "expired", detail };
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return { ok: false, reason: "bad_algorithm", detail };
    case "ERR_JWKS_INVALID":
      // The provider's set holds something that is not a public verification key.
      return { ok: false, reason: "jwks_unavailable", detail };
    case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
      const claim = (err as { claim?: unknown }).claim;
      if (claim === "nbf") return { ok: false, reason: "not_yet_valid", detail };
      if (claim === "iss") return { ok: false, reason: "wrong_issuer", detail };
      if (claim === "aud") return { ok: false, reason: "wrong_audience", detail };
      return { ok: false, reason: "malformed", detail };
    }
    default:
      return { ok: false, reason: "malformed", detail };
  }
}

const fromEnv = new Map<string, JwtVerifier>();

/**
 * The verifier the Worker vars (or a Node host's environment) describe, made once per distinct
 * configuration and then reused, so the provider's key set is fetched once per isolate or
 * process, not per request. `null` when JWT sign-in is off (no `AUTH_*` var). Throws
 * `AuthConfigError` naming every bad var.
 */
export function jwtVerifierFromEnv(env: JwtEnv): JwtVerifier | null {
  const config = jwtConfigFromEnv(env);
  if (!config) return null;
  const key = JSON.stringify({ ...config, jwksUrl: config.jwksUrl.href });
  let verifier = fromEnv.get(key);
  if (!verifier) {
    // One deployment has one configuration; the cap only stops a test suite from growing the map.
    if (fromEnv.size >= 8) fromEnv.clear();
    verifier = createJwtVerifier(config);
    fromEnv.set(key, verifier);
  }
  return verifier;
}
