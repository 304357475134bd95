/**
 * What a JWT sign-in accepts, and the one validation of it: from Worker vars (`AUTH_*`) or from
 * an object a Node host passes. A configuration that could let a forged token through (no issuer,
 * a symmetric or `none` algorithm, a plain-HTTP key URL on the internet) is refused at startup
 * with every problem named, never discovered one refused player at a time.
 */

/** Signature algorithms a JWKS can verify: asymmetric only (a JWKS publishes public keys). */
export const JWT_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"] as const;

/** One of {@link JWT_ALGORITHMS}. */
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** Accepted when `AUTH_ALGORITHMS` is not set: what the common providers sign with. */
export const DEFAULT_JWT_ALGORITHMS: readonly JwtAlgorithm[] = ["RS256", "ES256", "EdDSA"];

/** The claim that names the player when `AUTH_IDENTITY_CLAIM` is not set. */
export const DEFAULT_IDENTITY_CLAIM = "sub";

/**
 * Put before the claim's value when `AUTH_IDENTITY_PREFIX` is not set, so a provider's user id can
 * never equal a player id the game backend puts in a room ticket (the two would share one seat).
 */
export const DEFAULT_IDENTITY_PREFIX = "jwt:";

/** Clock difference allowed on `exp` and `nbf` when `AUTH_CLOCK_SKEW_SECONDS` is not set. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 60;

/** Largest accepted clock skew: beyond it an expired token lives on noticeably. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/**
 * `AUTH_AUDIENCE` value that turns the audience check off. Only for an issuer that signs tokens
 * for this game alone (Clerk's session tokens carry no `aud`); every other setup names its audience.
 */
export const ANY_AUDIENCE = "*";

/** The Worker vars a JWT sign-in reads (wrangler `vars`; lists are comma-separated or JSON arrays). */
export interface JwtEnv {
  /** JWKS URL of the provider (https; http only on loopback). Setting it turns JWT sign-in on. */
  AUTH_JWKS_URL?: unknown;
  /** Accepted `iss` values (one, or several comma-separated). Required. */
  AUTH_ISSUER?: unknown;
  /** Accepted `aud` values (the token must name one), or {@link ANY_AUDIENCE}. Required. */
  AUTH_AUDIENCE?: unknown;
  /** Claim holding the player's id; default {@link DEFAULT_IDENTITY_CLAIM}. */
  AUTH_IDENTITY_CLAIM?: unknown;
  /** Put before the claim's value; default {@link DEFAULT_IDENTITY_PREFIX}; `""` for none. */
  AUTH_IDENTITY_PREFIX?: unknown;
  /** Accepted algorithms, comma-separated; default {@link DEFAULT_JWT_ALGORITHMS}. */
  AUTH_ALGORITHMS?: unknown;
  /** Allowed clock skew in seconds, 0..{@link MAX_CLOCK_SKEW_SECONDS}; default {@link DEFAULT_CLOCK_SKEW_SECONDS}. */
  AUTH_CLOCK_SKEW_SECONDS?: unknown;
  /**
   * The claims handed to games in each player's record (`Player.claims`), comma-separated (e.g.
   * `name,roles`); default none. Alone it does not turn JWT sign-in on.
   */
  AUTH_CLAIMS?: unknown;
}

/** A JWT sign-in as a host passes it in code (the same fields as {@link JwtEnv}, same defaults). */
export interface JwtConfigInput {
  /** The provider's JWKS URL. */
  jwksUrl: string | URL;
  /** Accepted issuer(s). */
  issuer: string | readonly string[];
  /** Accepted audience(s), or {@link ANY_AUDIENCE}. */
  audience: string | readonly string[];
  /** Claim holding the player's id. */
  identityClaim?: string;
  /** Put before the claim's value. */
  identityPrefix?: string;
  /** Accepted algorithms. */
  algorithms?: readonly string[];
  /** Allowed clock skew in seconds. */
  clockSkewSeconds?: number;
  /** The claims handed to games in each player's record (`Player.claims`); default none. */
  claims?: readonly string[];
}

/** A validated JWT sign-in configuration ({@link resolveJwtConfig}). */
export interface JwtConfig {
  /** The provider's JWKS URL. */
  readonly jwksUrl: URL;
  /** Accepted `iss` values. */
  readonly issuers: readonly string[];
  /** Accepted `aud` values; `null` when the audience is not checked ({@link ANY_AUDIENCE}). */
  readonly audiences: readonly string[] | null;
  /** Claim holding the player's id. */
  readonly identityClaim: string;
  /** Put before the claim's value to make the identity. */
  readonly identityPrefix: string;
  /** Accepted `alg` values. */
  readonly algorithms: readonly JwtAlgorithm[];
  /** Allowed clock skew in seconds. */
  readonly clockSkewSeconds: number;
  /** The claims handed to games (`Player.claims`), in the order they are kept. */
  readonly claims: readonly string[];
}

/** A configuration that cannot be used; `problems` names each one (the message lists them all). */
export class AuthConfigError extends Error {
  /** Every problem found, one sentence each. */
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`JWT sign-in configuration refused: ${problems.join("; ")}`);
    this.name = "AuthConfigError";
    this.problems = problems;
  }
}

const PRINTABLE = /^[\x21-\x7e]*$/;
/** A claim name a deployment may hand games: 1–64 printable ASCII characters without spaces or commas. */
const CLAIM_NAME = /^[\x21-\x2b\x2d-\x7e]{1,64}$/;
/** Most claims handed to games (their JSON is bounded too: `MAX_PLAYER_CLAIMS_BYTES`). */
const MAX_CLAIMS = 16;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const MAX_PREFIX_LENGTH = 32;

/**
 * The JWT sign-in the Worker vars describe, or `null` when none of `AUTH_*` is set (JWT sign-in
 * off). Throws {@link AuthConfigError} naming every bad var, so a deploy with a typo fails on its
 * first request with the reason in the log instead of refusing players one by one.
 */
export function jwtConfigFromEnv(env: JwtEnv): JwtConfig | null {
  // Which claims games get is no sign-in of its own: AUTH_CLAIMS alone turns nothing on.
  const set = (Object.keys(FIELD_VARS) as (keyof JwtConfigInput)[]).some((field) => field !== "claims" && present(env[FIELD_VARS[field]]));
  if (!set) return null;
  const problems: string[] = [];
  const list = (field: keyof JwtConfigInput): string[] | undefined => {
    const value = env[FIELD_VARS[field]];
    if (!present(value)) return undefined;
    if (typeof value === "string") return value.split(",").map((v) => v.trim());
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.map((v: string) => v.trim());
    problems.push(`${name(field)} must be a string or a list of strings`);
    return undefined;
  };
  const text = (field: keyof JwtConfigInput): string | undefined => {
    const value = env[FIELD_VARS[field]];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value.trim();
    problems.push(`${name(field)} must be a string`);
    return undefined;
  };
  const skew = env.AUTH_CLOCK_SKEW_SECONDS;
  let clockSkewSeconds: number | undefined;
  if (typeof skew === "number") clockSkewSeconds = skew;
  else if (typeof skew === "string" && skew.trim() !== "") clockSkewSeconds = /^\d+$/.test(skew.trim()) ? Number(skew.trim()) : Number.NaN;
  else if (present(skew)) problems.push(`${name("clockSkewSeconds")} must be a whole number of seconds`);
  const input = {
    jwksUrl: text("jwksUrl") ?? "",
    issuer: list("issuer") ?? [],
    audience: list("audience") ?? [],
    identityClaim: present(env.AUTH_IDENTITY_CLAIM) ? text("identityClaim") : undefined,
    // Unlike the others, an empty prefix means something: no namespace.
    identityPrefix: text("identityPrefix"),
    algorithms: list("algorithms"),
    clockSkewSeconds,
    claims: list("claims"),
  };
  return check(input, problems);
}

/** Validates a configuration a host passes in code; throws {@link AuthConfigError} naming every problem. */
export function resolveJwtConfig(input: JwtConfigInput): JwtConfig {
  return check(
    {
      ...input,
      issuer: typeof input.issuer === "string" ? [input.issuer] : input.issuer,
      audience: typeof input.audience === "string" ? [input.audience] : input.audience,
    },
    [],
  );
}

const FIELD_VARS = {
  jwksUrl: "AUTH_JWKS_URL",
  issuer: "AUTH_ISSUER",
  audience: "AUTH_AUDIENCE",
  identityClaim: "AUTH_IDENTITY_CLAIM",
  identityPrefix: "AUTH_IDENTITY_PREFIX",
  algorithms: "AUTH_ALGORITHMS",
  clockSkewSeconds: "AUTH_CLOCK_SKEW_SECONDS",
  claims: "AUTH_CLAIMS",
} as const satisfies Record<keyof JwtConfigInput, keyof JwtEnv>;

function name(field: keyof JwtConfigInput): string {
  return `${FIELD_VARS[field]} (${field})`;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

interface CheckInput {
  jwksUrl: string | URL;
  issuer: readonly string[];
  audience: readonly string[];
  identityClaim?: string | undefined;
  identityPrefix?: string | undefined;
  algorithms?: readonly string[] | undefined;
  clockSkewSeconds?: number | undefined;
  claims?: readonly string[] | undefined;
}

function check(input: CheckInput, problems: string[]): JwtConfig {
  const jwksUrl = checkUrl(input.jwksUrl, problems);

  const issuers = input.issuer.filter((i) => i !== "");
  if (issuers.length === 0) problems.push(`${name("issuer")} is required: the exact "iss" your provider puts in its tokens`);

  let audiences: string[] | null = input.audience.filter((a) => a !== "");
  if (audiences.length === 0) {
    problems.push(`${name("audience")} is required: the "aud" your tokens carry (or "${ANY_AUDIENCE}" for an issuer that signs for this game alone)`);
  } else if (audiences.includes(ANY_AUDIENCE)) {
    if (audiences.length > 1) problems.push(`${name("audience")}: "${ANY_AUDIENCE}" cannot be combined with other audiences`);
    audiences = null;
  }

  const identityClaim = input.identityClaim ?? DEFAULT_IDENTITY_CLAIM;
  if (identityClaim === "" || identityClaim.length > 256) problems.push(`${name("identityClaim")} must be a claim name (1-256 characters)`);

  const identityPrefix = input.identityPrefix ?? DEFAULT_IDENTITY_PREFIX;
  if (identityPrefix.length > MAX_PREFIX_LENGTH || !PRINTABLE.test(identityPrefix)) {
    problems.push(`${name("identityPrefix")} must be at most ${MAX_PREFIX_LENGTH} printable ASCII characters without spaces`);
  }

  const algorithms: JwtAlgorithm[] = [];
  const problemsBefore = problems.length;
  for (const alg of input.algorithms?.filter((a) => a !== "") ?? DEFAULT_JWT_ALGORITHMS) {
    if ((JWT_ALGORITHMS as readonly string[]).includes(alg)) {
      if (!algorithms.includes(alg as JwtAlgorithm)) algorithms.push(alg as JwtAlgorithm);
    } else if (/^HS\d+$/.test(alg)) {
      problems.push(`${name("algorithms")}: ${alg} is symmetric; a JWKS holds public keys, and accepting ${alg} would let anyone who has the public key sign tokens`);
    } else {
      problems.push(`${name("algorithms")}: "${alg}" is not one of ${JWT_ALGORITHMS.join(", ")}`);
    }
  }
  if (algorithms.length === 0 && problems.length === problemsBefore) problems.push(`${name("algorithms")} names no algorithm`);

  const clockSkewSeconds = input.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  if (!Number.isInteger(clockSkewSeconds) || clockSkewSeconds < 0 || clockSkewSeconds > MAX_CLOCK_SKEW_SECONDS) {
    problems.push(`${name("clockSkewSeconds")} must be a whole number of seconds in 0..${MAX_CLOCK_SKEW_SECONDS}`);
  }

  const claims: string[] = [];
  for (const claim of input.claims?.filter((c) => c !== "") ?? []) {
    if (!CLAIM_NAME.test(claim)) problems.push(`${name("claims")}: ${JSON.stringify(claim.slice(0, 64))} is not a claim name (1-64 printable ASCII characters, no spaces or commas)`);
    else if (!claims.includes(claim)) claims.push(claim);
  }
  if (claims.length > MAX_CLAIMS) problems.push(`${name("claims")} names ${claims.length} claims; at most ${MAX_CLAIMS}`);

  if (problems.length > 0 || jwksUrl === null) throw new AuthConfigError(problems);
  return { jwksUrl, issuers, audiences, identityClaim, identityPrefix, algorithms, clockSkewSeconds, claims };
}

function checkUrl(value: string | URL, problems: string[]): URL | null {
  if (value === "") {
    problems.push(`${name("jwksUrl")} is required: your provider's JWKS URL`);
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${name("jwksUrl")} is not a URL: ${JSON.stringify(String(value))}`);
    return null;
  }
  // Keys fetched over plain HTTP can be swapped by anyone on the path; loopback is for tests and local providers.
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) {
    problems.push(`${name("jwksUrl")} must be an https: URL (http: only on loopback), got ${url.protocol}//${url.host}`);
    return null;
  }
  if (url.username !== "" || url.password !== "") {
    problems.push(`${name("jwksUrl")} must not carry credentials`);
    return null;
  }
  return url;
}
