/**
 * Which web pages may open a room socket, judged by the handshake's `Origin` header.
 *
 * Browsers always send `Origin` on a WebSocket handshake and page scripts cannot forge it, so
 * this check is what stops a foreign site from using a visitor's browser (and any ticket it can
 * obtain) to join rooms. Non-browser clients (native games, servers, the load tool) send no
 * `Origin` and could send any value they like, so for them the check is meaningless; they are
 * allowed through and the room ticket is the gate.
 */

/** What the check reads of a request (a Fetch `Request` has it): its URL and its `Origin` header. */
export interface OriginRequest {
  /** The request's URL (its origin is the host's own). */
  readonly url: string;
  /** Its headers. */
  readonly headers: {
    /** A header's value, or null. */
    get(name: string): string | null;
  };
}

/** Result of {@link checkOrigin}. */
export type OriginVerdict =
  | {
      /** The request may open a room socket. */
      ok: true;
    }
  | {
      /** Refused. */
      ok: false;
      /** The refused `Origin` header value. */
      origin: string;
    };

/**
 * Parses `ALLOWED_ORIGINS`: comma-separated origins such as `https://play.example.com`, or `*`
 * for any origin. Entries are normalised to `scheme://host[:port]` (lower case, default port
 * dropped); entries that are not an origin are ignored, so a typo cannot silently allow all.
 */
export function parseAllowedOrigins(raw: string | undefined): {
  /** `*` was listed: every origin is allowed. */
  any: boolean;
  /** The listed origins, normalized. */
  origins: ReadonlySet<string>;
} {
  const origins = new Set<string>();
  let any = false;
  for (const part of (raw ?? "").split(",")) {
    const entry = part.trim();
    if (entry === "") continue;
    if (entry === "*") {
      any = true;
      continue;
    }
    const normalised = normaliseOrigin(entry);
    if (normalised) origins.add(normalised);
  }
  return { any, origins };
}

/** `scheme://host[:port]` of a URL or origin string, or null if it is not an http(s) origin. */
export function normaliseOrigin(value: string): string | null {
  try {
    const u = new URL(value);
    if (u.protocol !== "https:" && u.protocol !== "http:") return null;
    return u.origin;
  } catch {
    return null;
  }
}

/**
 * Decides whether a handshake may proceed:
 * - no `Origin` header: allowed (not a browser; the ticket decides);
 * - same origin as the gateway (its own demo page): allowed;
 * - listed in `ALLOWED_ORIGINS` (or the list is `*`): allowed;
 * - list empty and DEV_MODE: allowed (local pages, tunnels, file://);
 * - anything else, including `Origin: null` from sandboxed frames: refused (403).
 */
export function checkOrigin(request: OriginRequest, allowedOrigins: string | undefined, devMode: boolean): OriginVerdict {
  const origin = request.headers.get("Origin");
  if (origin === null) return { ok: true };
  const policy = parseAllowedOrigins(allowedOrigins);
  if (policy.any) return { ok: true };
  const normalised = normaliseOrigin(origin);
  if (normalised !== null) {
    if (normalised === new URL(request.url).origin) return { ok: true };
    if (policy.origins.has(normalised)) return { ok: true };
  }
  if (devMode && policy.origins.size === 0) return { ok: true };
  return { ok: false, origin: origin.slice(0, 100) };
}
