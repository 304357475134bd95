import { BinaryWriter } from "@tikron/protocol";
import type { FpsEvent } from "../../src/schemas";

/**
 * The layout fps events had while the game wrote their codec by hand, kept as the reference the
 * declared events must not grow past: `u8 tag (1 tracer, 2 kill) | varuint shooter | varuint hit
 * | u16 x0 | u16 y0 | u16 x1 | u16 y1` (1/16 units, clamped to 0..0xffff) and `u8 tag |
 * varuint killer | varuint victim`.
 */
export function handWrittenFpsEvent(e: FpsEvent): Uint8Array {
  const w = new BinaryWriter();
  const pos = (v: number): number => Math.min(0xffff, Math.max(0, Math.round(v * 16)));
  if (e.kind === "kill") return w.u8(2).varuint(e.killer).varuint(e.victim).toBytes();
  return w.u8(1).varuint(e.shooter).varuint(e.hit).u16(pos(e.x0)).u16(pos(e.y0)).u16(pos(e.x1)).u16(pos(e.y1)).toBytes();
}

/** Bytes of a FRAME's events section holding bodies of these lengths: the count, then each length-prefixed body. */
export function eventsSectionBytes(lengths: readonly number[]): number {
  const varuintLen = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);
  return lengths.length === 0 ? 0 : varuintLen(lengths.length) + lengths.reduce((sum, n) => sum + varuintLen(n) + n, 0);
}
