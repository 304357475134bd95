/**
 * Who is calling the Node host, by the gateway's rule (core `identifyCaller`): a room ticket
 * (`ticketSecret`) or a JWT of the game's sign-in provider (`auth`). Match requests need one
 * outside DEV_MODE; joins need one outside DEV_MODE once the host accepts any (a Node host with
 * neither keeps its open joins, for loopback benchmarks and tests).
 */
import type { IncomingMessage } from "node:http";
import { createJwtVerifier, identifyCaller, type CallerVerdict, type HeadersLike, type JwtConfigInput, type JwtVerifier } from "@tikron/core/auth";

/** What the Node host's identity rule needs. */
export interface NodeIdentityOptions {
  /** DEV_MODE: credentials optional (checked when sent). */
  devMode: boolean;
  /** HMAC secret of room tickets. */
  ticketSecret?: string | undefined;
  /** The game's sign-in provider: a verifier, or its configuration (validated here; throws `AuthConfigError`). */
  auth?: JwtVerifier | JwtConfigInput | undefined;
}

/** A Node request's headers as `identify` reads them. */
export function headersOf(req: IncomingMessage): HeadersLike {
  return {
    get: (name) => {
      const v = req.headers[name.toLowerCase()];
      return typeof v === "string" ? v : Array.isArray(v) ? (v[0] ?? null) : null;
    },
  };
}

/** The Node host's callers (see the module comment). */
export class NodeIdentity {
  readonly #devMode: boolean;
  readonly #secret: string | undefined;
  readonly #jwt: JwtVerifier | null;

  constructor(options: NodeIdentityOptions) {
    this.#devMode = options.devMode;
    this.#secret = options.ticketSecret;
    const auth = options.auth;
    this.#jwt = auth === undefined ? null : "verify" in auth ? auth : createJwtVerifier(auth);
  }

  /** Whether this host accepts any credential at all. */
  get configured(): boolean {
    return this.#secret !== undefined || this.#jwt !== null;
  }

  /**
   * The caller of `req` to a room of `kind` whose ticket must name one of `roomIds`; `match`:
   * a match request (a credential needed outside DEV_MODE even when none is accepted).
   */
  async caller(req: IncomingMessage, kind: string, roomIds: string | readonly string[], match: boolean): Promise<CallerVerdict> {
    const ticket = this.#secret !== undefined ? { secret: this.#secret, kind, roomId: roomIds } : null;
    const required = !this.#devMode && (match || this.configured);
    try {
      return await identifyCaller({ url: req.url ?? "/", headers: headersOf(req) }, { ticket, jwt: this.#jwt, required });
    } catch {
      // A ticket secret too short to use: nobody gets in on it.
      return { ok: false, via: null, reason: "unconfigured", status: 503, message: "the ticket secret of this host is unusable" };
    }
  }
}
