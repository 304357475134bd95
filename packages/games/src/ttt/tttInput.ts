import { reject, type InputRejection } from "@tikron/protocol";

/**
 * A `ttt-json` input, the `data` of a JSON `{ t: "input", seq, data }` message: either
 * `{ "cell": 0..8 }` (place your mark) or `{ "rematch": true }` (ask for another round once the
 * game is over; the round starts when both players asked).
 */
export type TttInput = { cell: number } | { rematch: true };

/**
 * Validates a ttt input strictly: a plain object with exactly one key, `cell` an integer 0..8
 * or `rematch` exactly `true`. Anything else (strings, floats, arrays, extra keys) is refused
 * as `bad_input`, so a client bug shows up as an error instead of a silent misplay.
 */
export function decodeTttInput(data: unknown): TttInput | InputRejection {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return reject("bad_input", 'ttt input must be an object: {"cell": 0..8} or {"rematch": true}');
  }
  const keys = Object.keys(data);
  if (keys.length !== 1) return reject("bad_input", `ttt input must have exactly one key, got ${keys.length}`);
  const o = data as Record<string, unknown>;
  if (keys[0] === "cell") {
    const cell = o.cell;
    if (typeof cell !== "number" || !Number.isInteger(cell) || cell < 0 || cell > 8) {
      return reject("bad_input", "cell must be an integer 0..8");
    }
    return { cell };
  }
  if (keys[0] === "rematch") {
    if (o.rematch !== true) return reject("bad_input", "rematch must be true");
    return { rematch: true };
  }
  return reject("bad_input", `unknown ttt input key "${keys[0].slice(0, 16)}"`);
}
