import { DEV_MODE_SECRET } from "@tikron/core/ticket";

/** The bindings that decide how joins and seat reservations are signed. */
export interface SecretEnv {
  /** `"true"` on staging and local dev. */
  DEV_MODE?: string;
  /** The HMAC secret of tickets and reservations (`wrangler secret put TICKET_SECRET`). */
  TICKET_SECRET?: string;
}

/**
 * The secret seat reservations are signed and verified with: `TICKET_SECRET` when set, else in
 * DEV_MODE the public development secret (a DEV_MODE gateway trusts nobody anyway), else none —
 * and then no reservation is handed out or accepted.
 */
export function signingSecret(env: SecretEnv): string | null {
  if (env.TICKET_SECRET) return env.TICKET_SECRET;
  return env.DEV_MODE === "true" ? DEV_MODE_SECRET : null;
}
