/** Which relay of a relayed room a join goes to (AGENTS.md "Relays"). */

let nextAnonymousRelay = 0;

/**
 * The relay (0..relays-1) a join goes to. With an identity (a ticket's or a reservation's
 * player id), a stable hash of it: every socket of one identity lands on one relay, so that
 * relay's per-identity limits see them all, and a reconnect lands where the seat's last socket
 * was. Without one (DEV_MODE joins with no ticket), round robin in this gateway instance. Not
 * least-loaded: the gateway knows no relay's load without asking, and hashing spreads many
 * identities evenly enough.
 */
export function relayIndexFor(identity: string | undefined, relays: number): number {
  if (identity === undefined) return nextAnonymousRelay++ % relays;
  // FNV-1a, 32 bits.
  let h = 0x811c9dc5;
  for (let i = 0; i < identity.length; i++) h = Math.imul(h ^ identity.charCodeAt(i), 0x01000193);
  return (h >>> 0) % relays;
}
