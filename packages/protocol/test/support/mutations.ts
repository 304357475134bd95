import fc from "fast-check";

/**
 * One change a broken or hostile peer makes to a valid frame: a byte overwritten, the frame cut,
 * a large varuint or other bytes spliced in, bytes appended. The decoder tests' one way to damage
 * frames.
 */
export type Mutation =
  | { at: number; op: "set"; byte: number }
  | { at: number; op: "cut" }
  | { at: number; op: "huge" }
  | { at: number; op: "splice"; bytes: readonly number[] }
  | { op: "extend"; bytes: Uint8Array };

/** Any of the mutations but "splice" (whose bytes each test picks), anywhere in the frame. */
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ at: fc.nat(), op: fc.constant("set" as const), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ at: fc.nat(), op: fc.constant("cut" as const) }),
  fc.record({ at: fc.nat(), op: fc.constant("huge" as const) }),
  fc.record({ op: fc.constant("extend" as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
);

/** `bytes` with `m` applied (a copy; `at` wraps around the frame's length). */
export function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  if (m.op === "extend") return Uint8Array.from([...bytes, ...m.bytes]);
  const at = m.at % bytes.length;
  if (m.op === "cut") return bytes.slice(0, at);
  if (m.op === "huge") return Uint8Array.from([...bytes.subarray(0, at), 0xff, 0xff, 0xff, 0xff, 0x0f, ...bytes.subarray(at)]);
  if (m.op === "splice") return Uint8Array.from([...bytes.subarray(0, at), ...m.bytes, ...bytes.subarray(at)]);
  const out = bytes.slice();
  out[at] = m.byte;
  return out;
}
