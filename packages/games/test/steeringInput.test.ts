import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryWriter, isRejection } from "@tikron/protocol";
import { decodeSteering } from "../src/steeringInput";

/** The rule as stated, written plainly: the twin decodeSteering is checked against. */
function naiveDecode(bytes: Uint8Array): { dx: number; dy: number; boost: boolean } | null {
  if (bytes.length !== 9) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let dx = view.getFloat32(0, true);
  let dy = view.getFloat32(4, true);
  const flags = bytes[8]!;
  if (!Number.isFinite(dx) || !Number.isFinite(dy) || flags > 1) return null;
  const mag = Math.sqrt(dx * dx + dy * dy);
  if (mag > 1.5) return null;
  if (mag > 1) {
    dx /= mag;
    dy /= mag;
  }
  return { dx, dy, boost: flags === 1 };
}

describe("decodeSteering", () => {
  it("accepts, clamps and refuses exactly as the stated rule (fast-check against a naive twin)", () => {
    const component = fc.oneof(fc.float({ min: -2, max: 2 }), fc.float());
    fc.assert(
      fc.property(component, component, fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 }), (dx, dy, flags, extra) => {
        const bytes = new BinaryWriter().f32(dx).f32(dy).u8(flags).bytes(new Uint8Array(extra)).toBytes();
        const got = decodeSteering(bytes, "test input", "boost");
        const want = naiveDecode(bytes);
        if (want === null) {
          expect(isRejection(got)).toBe(true);
          if (isRejection(got)) expect(got.code).toBe("bad_input");
        } else {
          expect(isRejection(got)).toBe(false);
          if (!isRejection(got)) {
            expect(got.boost).toBe(want.boost);
            expect(got.dx).toBeCloseTo(want.dx, 6);
            expect(got.dy).toBeCloseTo(want.dy, 6);
          }
        }
      }),
      { numRuns: 2000 },
    );
    expect(isRejection(decodeSteering("text", "test input", "boost"))).toBe(true);
  });
});
