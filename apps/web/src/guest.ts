/**
 * This browser's guest key: made once at random and kept in local storage. The pages send it
 * (`?guest=`) with every join and match request, and a DEV_MODE gateway seats a caller without a
 * credential that sends one as the same guest (`guest-…`) in every room: what the rooms keep by
 * identity, the tic-tac-toe record the lobby shows, is this browser's. Production gateways need
 * a credential and ignore it.
 */
const STORAGE_KEY = "tikron.guest";

/** The key: 24 characters of base64url (the server takes 16–128). */
export function guestKey(storage: Pick<Storage, "getItem" | "setItem"> | null = localStorageOrNull()): string {
  const kept = storage?.getItem(STORAGE_KEY);
  if (kept && /^[A-Za-z0-9_-]{16,128}$/.test(kept)) return kept;
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  const key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
  storage?.setItem(STORAGE_KEY, key);
  return key;
}

/** Local storage, or null where the page may not use it (a sandboxed frame, a locked-down browser). */
function localStorageOrNull(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}
