import type { Rng } from "../rng";
import type { Scenario } from "./scenario";
import { randomHeading, wander, type Heading } from "./steering";

/** Size of one agar input on the wire: f32 dx, f32 dy, u8 flags (little-endian). */
export const AGAR_INPUT_BYTES = 9;

/** Flag bits of an agar input. */
export const AgarFlag = { Boost: 1 } as const;

/**
 * Encodes one agar steering input: unit direction (dx, dy) and flags (bit0 = boost).
 * Writes 9 bytes at `offset` and returns 9.
 */
export function encodeAgarInput(out: DataView, offset: number, dx: number, dy: number, flags: number): number {
  out.setFloat32(offset, dx, true);
  out.setFloat32(offset + 4, dy, true);
  out.setUint8(offset + 8, flags & 0xff);
  return AGAR_INPUT_BYTES;
}

/** Share of inputs with the boost bit set. */
const BOOST_PROBABILITY = 0.05;

/** Random-walk steering: the heading drifts by a small random turn each input. */
export const agarScenario: Scenario<Heading> = {
  name: "agar",
  roomKind: "agar",
  defaultRate: 20,
  maxPayloadBytes: AGAR_INPUT_BYTES,
  counters: [],
  createPlayer: (rng: Rng) => randomHeading(rng),
  writeInput(h: Heading, rng: Rng, out: DataView, offset: number): number {
    wander(h, rng);
    const flags = rng.next() < BOOST_PROBABILITY ? AgarFlag.Boost : 0;
    return encodeAgarInput(out, offset, Math.cos(h.angle), Math.sin(h.angle), flags);
  },
};
