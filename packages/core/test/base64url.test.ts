import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBase64Url, toBase64Url } from "../src/base64url";

describe("base64url", () => {
  it("writes what Node's own encoder writes and reads it back, at any length (chunk edges included)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 9000, size: "max" }), (bytes) => {
        const text = toBase64Url(bytes);
        expect(text).toBe(Buffer.from(bytes).toString("base64url"));
        expect(fromBase64Url(text)).toEqual(bytes);
      }),
      { numRuns: 100 },
    );
  });

  it("reads nothing that is not unpadded base64url, without throwing", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const bytes = fromBase64Url(text);
        const valid = /^[A-Za-z0-9_-]*$/.test(text) && text.length % 4 !== 1;
        expect(bytes !== null).toBe(valid);
        if (bytes) expect(bytes).toEqual(new Uint8Array(Buffer.from(text, "base64url")));
      }),
    );
    expect(fromBase64Url("AAA=")).toBeNull();
  });
});
