/**
 * Sign in with the provider the game already uses: verify its JWTs (RS256, ES256, EdDSA and the
 * other asymmetric algorithms) against its JWKS URL and map a claim to the player's identity;
 * {@link identify} a join by a room ticket or such a token. Runs unchanged in Workers, Node 22
 * and browsers (jose and WebCrypto; no `cloudflare:workers`).
 *
 * @module @tikron/core/auth
 */
export {
  jwtConfigFromEnv,
  resolveJwtConfig,
  AuthConfigError,
  JWT_ALGORITHMS,
  DEFAULT_JWT_ALGORITHMS,
  DEFAULT_IDENTITY_CLAIM,
  DEFAULT_IDENTITY_PREFIX,
  DEFAULT_CLOCK_SKEW_SECONDS,
  MAX_CLOCK_SKEW_SECONDS,
  ANY_AUDIENCE,
  type JwtAlgorithm,
  type JwtEnv,
  type JwtConfig,
  type JwtConfigInput,
} from "./jwtConfig";
export {
  JwksCache,
  JWKS_MAX_AGE_MS,
  JWKS_COOLDOWN_MS,
  JWKS_STALE_IF_ERROR_MS,
  JWKS_TIMEOUT_MS,
  MAX_JWKS_BYTES,
  type JwksCacheOptions,
  type JwksSnapshot,
  type JwksRefresh,
} from "./jwksCache";
export { createJwtVerifier, jwtVerifierFromEnv, MAX_JWT_LENGTH, type JwtVerifier, type JwtVerifierOptions, type JwtVerdict, type JwtRefusal } from "./jwtVerifier";
export { identify, identifyCaller, playerClaimsOf, guestIdentity, GUEST_KEY_PARAM, GUEST_KEY_PATTERN, readCredential, SIGN_IN_RETRY_MS, type CallerVerdict, type IdentifyRequest, type IdentifyOptions, type TicketRequirement, type IdentityVerdict, type IdentityRefusal, type Credential, type HeadersLike } from "./identify";
export { identifyReservedJoin, type ReservationRequirement, type ReservedJoinRefusal, type ReservedJoinVerdict } from "./reservedJoin";
