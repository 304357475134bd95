/** A match log handed over in pieces (a room's `RecordingSink.write` calls), joined back into one. */

/** The pieces, in order, as one log (a copy: the pieces may be reused by their writer). */
export function joinLogPieces(pieces: Iterable<ArrayBuffer | Uint8Array>): Uint8Array {
  const list = [...pieces].map((p) => (p instanceof Uint8Array ? p : new Uint8Array(p)));
  const out = new Uint8Array(list.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of list) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
