/**
 * The match log's hashes (32-bit FNV-1a): of the state messages a flush sent, of a JSON room's
 * state, and the stand-ins for reconnect tokens. Cheap and allocation-free; a replay compares
 * them, so they need only tell two runs apart, not resist an adversary.
 */

/** FNV-1a's offset basis: the hash of nothing. */
export const HASH_START = 0x811c9dc5;
const PRIME = 0x01000193;

/** `h` extended with the 32-bit integer `v` (as one unit). */
export function hashInt(h: number, v: number): number {
  return Math.imul(h ^ v, PRIME);
}

/** `h` extended with every byte of `bytes`. */
export function hashBytes(h: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, PRIME);
  return h;
}

/** `h` extended with every UTF-16 unit of `text`. */
export function hashText(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), PRIME);
  return h;
}

/**
 * What a match log keeps in place of a reconnect token (a checkpoint's seats, an adopted seat's
 * ticket): its hash, so two seats' tokens still tell apart and none is kept.
 */
export function tokenStandIn(token: string): string {
  return `h${(hashText(HASH_START, token) >>> 0).toString(16).padStart(8, "0")}`;
}
