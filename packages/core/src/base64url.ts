/**
 * Bytes as base64url text without padding and back (tickets, random ids, a world's checkpoint):
 * `btoa`/`atob` only, so it runs unchanged in Workers, Node and browsers.
 */

/** The base64url alphabet; unpadded text of it is what {@link fromBase64Url} reads. */
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Bytes turned into characters per `String.fromCharCode` call. */
const CHUNK = 4096;

/** `bytes` as base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  // In chunks: one call per byte is slow for a world's checkpoint, one call for all of it could
  // pass more arguments than the engine takes.
  for (let i = 0; i < bytes.length; i += CHUNK) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of unpadded base64url `text`, or null when it is not that. Never throws. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}
