/**
 * The one table of a join's refusals before any room sees it, on every host: each refusal's
 * cause (what `HostRefusals` counts and the admin API shows), its HTTP status (a request
 * without an upgrade, or an upgrade past its address's budget) and the close code an upgrade is
 * closed with at once (a browser cannot read a failed upgrade's status). The Cloudflare gateway
 * and the Node host answer a {@link JoinRefusal} as it says; neither maps a reason on its own.
 */
import { CloseCode, type RefusalCause, type RouteRefusal } from "@tikron/protocol";
import { SIGN_IN_RETRY_MS } from "../auth/identify";
import type { ReservedJoinRefusal } from "../auth/reservedJoin";

/** How a refusal is answered: counted under `cause` (null: not counted), with `status` or `close`. */
export interface JoinRefusalRow {
  /** The cause it is counted under; null for an answer that is no refusal of the caller (426). */
  readonly cause: RefusalCause | null;
  /** The HTTP status of the answer without an upgrade. */
  readonly status: number;
  /** The close code an upgrade is closed with. */
  readonly close: number;
  /** The wait an upgrade is told to honour (ms); 0: none, the refusal is final. */
  readonly retryAfterMs: number;
}

const unauthorized = (cause: RefusalCause): JoinRefusalRow => ({ cause, status: 401, close: CloseCode.unauthorized, retryAfterMs: 0 });

/**
 * The name of a row of {@link JOIN_REFUSALS}: `no_route` (not a room path, on a host that serves
 * nothing else), `unknown_kind`, `bad_path` (bad `%` escape, room id, override), `dev_mode_only`
 * (stats, the abort drill or overrides outside DEV_MODE), `foreign_origin`, `not_a_join` (stats,
 * bots or the abort drill asked for with an upgrade), the credential causes (`no_credential`,
 * `malformed`, `forged`, `expired`, `wrong_room`, `two_identities`), `sign_in_unavailable`
 * (the provider's keys out of reach: come back shortly), `unconfigured` (the deployment admits
 * no one), `throttled` (a wait of the host's own), `upgrade_required` (426, not counted).
 */
export type JoinRefusalKind =
  | "no_route"
  | "unknown_kind"
  | "bad_path"
  | "dev_mode_only"
  | "foreign_origin"
  | "not_a_join"
  | "no_credential"
  | "malformed"
  | "forged"
  | "expired"
  | "wrong_room"
  | "two_identities"
  | "sign_in_unavailable"
  | "unconfigured"
  | "throttled"
  | "upgrade_required";

/** Every refusal a join can meet before a room, by name (see the module comment). */
export const JOIN_REFUSALS: Readonly<Record<JoinRefusalKind, JoinRefusalRow>> = {
  /** Not a room path (an upgrade to any other path, on a host that serves nothing else). */
  no_route: { cause: "not_found", status: 404, close: CloseCode.not_found, retryAfterMs: 0 },
  /** A kind this deployment does not host. */
  unknown_kind: { cause: "not_found", status: 404, close: CloseCode.not_found, retryAfterMs: 0 },
  /** A malformed room path: bad `%` escape, bad room id, an override out of range. */
  bad_path: { cause: "bad_request", status: 400, close: CloseCode.bad_request, retryAfterMs: 0 },
  /** Stats, the abort drill or overrides outside DEV_MODE. */
  dev_mode_only: { cause: "forbidden", status: 403, close: CloseCode.forbidden, retryAfterMs: 0 },
  /** A browser page on an origin the deployment does not allow. */
  foreign_origin: { cause: "forbidden", status: 403, close: CloseCode.forbidden, retryAfterMs: 0 },
  /** Stats, bots or the abort drill asked for with an upgrade (a host that serves them as plain HTTP). */
  not_a_join: { cause: "bad_request", status: 400, close: CloseCode.bad_request, retryAfterMs: 0 },
  /** No credential where one is required. */
  no_credential: unauthorized("no_credential"),
  /** A credential that is not one (or a reservation that is a plain ticket). */
  malformed: unauthorized("malformed"),
  /** A credential whose signature or key is wrong. */
  forged: unauthorized("forged"),
  /** A credential out of its lifetime. */
  expired: unauthorized("expired"),
  /** A credential for another room, kind, issuer or audience. */
  wrong_room: unauthorized("wrong_room"),
  /** Two credentials, or a reservation held for another player than the other credential names. */
  two_identities: unauthorized("two_identities"),
  /** The sign-in provider's keys cannot be had now: come back shortly. */
  sign_in_unavailable: { cause: "unavailable", status: 503, close: CloseCode.join_throttled, retryAfterMs: SIGN_IN_RETRY_MS },
  /** The deployment cannot admit anyone (no secret, a configuration that cannot work). */
  unconfigured: { cause: "unavailable", status: 503, close: CloseCode.unavailable, retryAfterMs: 0 },
  /** A caller told to wait that came back too soon, or a burst of its upgrades (the wait is the host's). */
  throttled: { cause: "throttled", status: 429, close: CloseCode.join_throttled, retryAfterMs: 1_000 },
  /** A join asked for without an upgrade: answered 426, not counted. */
  upgrade_required: { cause: null, status: 426, close: CloseCode.bad_request, retryAfterMs: 0 },
};

/** A join refused before any room: the row it falls under and the text the client reads. */
export interface JoinRefusal extends JoinRefusalRow {
  /** Which row. */
  readonly kind: JoinRefusalKind;
  /** Client-safe text (the close reason, the body of a plain answer). */
  readonly message: string;
}

/** A refusal of `kind` with `message`; `retryAfterMs` overrides the row's wait (a host's own). */
export function joinRefusal(kind: JoinRefusalKind, message: string, retryAfterMs?: number): JoinRefusal {
  const row = JOIN_REFUSALS[kind];
  return { kind, message, cause: row.cause, status: row.status, close: row.close, retryAfterMs: retryAfterMs ?? row.retryAfterMs };
}

/** The refusal of a join URL the protocol's `routeRoomUrl` refused (404 kind, 403 DEV_MODE only, 400 the rest). */
export function routeRefusal(r: RouteRefusal): JoinRefusal {
  return joinRefusal(r.status === 404 ? "unknown_kind" : r.status === 403 ? "dev_mode_only" : "bad_path", r.reason);
}

/** The refusal cause of a credential (or a reservation) the host refused (see `REFUSAL_CAUSES`). */
export function credentialRefusalCause(reason: ReservedJoinRefusal | "unconfigured"): RefusalCause {
  switch (reason) {
    case "missing":
      return "no_credential";
    case "malformed":
    case "bad_identity":
    case "not_a_reservation":
      return "malformed";
    case "two_identities":
      return "two_identities";
    case "bad_signature":
    case "unknown_key":
    case "bad_algorithm":
      return "forged";
    case "expired":
    case "not_yet_valid":
    case "too_long":
      return "expired";
    case "wrong_room":
    case "wrong_issuer":
    case "wrong_audience":
      return "wrong_room";
    case "jwks_unavailable":
    case "unconfigured":
      return "unavailable";
  }
}

/** A refused credential or reservation as the core's verdicts say it (`identifyCaller`, `identifyReservedJoin`). */
export interface CredentialRefusal {
  /** Why. */
  reason: ReservedJoinRefusal | "unconfigured";
  /** 401, or 503 when it cannot be checked now. */
  status: number;
  /** Client-safe text. */
  message: string;
}

/**
 * The refusal of a refused credential: the provider's keys out of reach (`sign_in_unavailable`),
 * anything else the host cannot check now (`unconfigured`), else `unauthorized` under the
 * credential's cause; `ambiguous` (two credentials sent) is `two_identities`.
 */
export function credentialRefusal(v: CredentialRefusal, ambiguous = false): JoinRefusal {
  if (v.reason === "jwks_unavailable") return joinRefusal("sign_in_unavailable", v.message);
  if (v.status === 503) return joinRefusal("unconfigured", v.message);
  const cause = ambiguous ? "two_identities" : credentialRefusalCause(v.reason);
  // Every credential cause has its row of the same name (`unavailable`, which has none, never comes with a 401).
  return joinRefusal(isKind(cause) ? cause : "unconfigured", v.message);
}

function isKind(name: string): name is JoinRefusalKind {
  return Object.hasOwn(JOIN_REFUSALS, name);
}
