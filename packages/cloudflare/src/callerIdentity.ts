/**
 * Who is calling, by the gateway's one rule for joins and match requests: a room ticket
 * (`TICKET_SECRET`) or a JWT of the game's sign-in provider (`AUTH_*` vars), required outside
 * DEV_MODE, optional in DEV_MODE but checked when sent (core `identifyCaller`). A configuration
 * that cannot work (a ticket secret too short, a bad `AUTH_*` var) is logged and answered as
 * "not configured", never guessed around.
 */
import { identifyCaller, jwtVerifierFromEnv, type CallerVerdict, type JwtEnv, type JwtVerifier } from "@tikron/core/auth";

/** The bindings identity reads. */
export interface IdentityEnv extends JwtEnv {
  /** `"true"` on staging and local dev: credentials optional. */
  DEV_MODE?: string;
  /** HMAC secret of room tickets; without it tickets are not accepted. */
  TICKET_SECRET?: string;
}

/** The JWT verifier the vars describe (null: JWT sign-in off), or `"misconfigured"` (logged). */
function jwtOf(env: IdentityEnv): JwtVerifier | null | "misconfigured" {
  try {
    return jwtVerifierFromEnv(env);
  } catch (e) {
    console.error("[gateway] JWT sign-in is misconfigured; refusing sign-ins:", e instanceof Error ? e.message : e);
    return "misconfigured";
  }
}

/**
 * The caller of `request`, to a room of `kind` whose ticket must name one of `roomIds` (a join:
 * the room; a match request: `*`, or `*` and the room it asks for).
 */
export async function identifyRequest(request: Request, env: IdentityEnv, kind: string, roomIds: string | readonly string[]): Promise<CallerVerdict> {
  const devMode = env.DEV_MODE === "true";
  const jwt = jwtOf(env);
  if (jwt === "misconfigured") return unconfigured();
  const ticket = env.TICKET_SECRET ? { secret: env.TICKET_SECRET, kind, roomId: roomIds } : null;
  if (!devMode && !ticket && !jwt) console.error("[gateway] neither TICKET_SECRET nor AUTH_JWKS_URL is set: refusing every join and match request (set one: `wrangler secret put TICKET_SECRET`, or the AUTH_* vars)");
  try {
    const verdict = await identifyCaller(request, { ticket, jwt, required: !devMode });
    if (!verdict.ok && verdict.reason === "jwks_unavailable") console.warn("[gateway] the sign-in provider's keys cannot be fetched:", verdict.detail ?? "");
    return verdict;
  } catch (e) {
    console.error("[gateway] TICKET_SECRET is unusable:", e instanceof Error ? e.message : e);
    return unconfigured();
  }
}

function unconfigured(): CallerVerdict {
  return { ok: false, via: null, reason: "unconfigured", status: 503, message: "joins are not configured on this gateway" };
}
