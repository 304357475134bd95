import { reservationSecret } from "@tikron/core/join";

/** The bindings that decide how joins and seat reservations are signed. */
export interface SecretEnv {
  /** `"true"` on staging and local dev. */
  DEV_MODE?: string;
  /** The HMAC secret of tickets and reservations (`wrangler secret put TICKET_SECRET`). */
  TICKET_SECRET?: string;
}

/**
 * The secret seat reservations are signed and verified with, by the core's one rule
 * (`reservationSecret`): `TICKET_SECRET` when set, else in DEV_MODE the public development
 * secret, else none — and then no reservation is handed out or accepted.
 */
export function signingSecret(env: SecretEnv): string | null {
  return reservationSecret(env.TICKET_SECRET, env.DEV_MODE === "true");
}
