import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_PAYLOAD_CHARS, RequestError } from "@tikron/protocol";
import { messageJson } from "../src/messaging";
import { utf8Length } from "../src/wire";

// What the connection checks and counts besides its dialect (protocol/test/clientDialects.test.ts).
describe("checks before sending", () => {
  it("room messages need a legal type and a payload within the limit", () => {
    expect(() => messageJson('chat"', 1)).toThrow(RequestError);
    expect(() => messageJson("chat", "x".repeat(MAX_MESSAGE_PAYLOAD_CHARS))).toThrow(expect.objectContaining({ code: "message_too_large" }));
    expect(messageJson("chat", undefined)).toBe("null");
  });

  it("utf8Length is the UTF-8 byte length", () =>
    fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => {
        expect(utf8Length(s)).toBe(Buffer.byteLength(s, "utf8"));
      }),
    ));
});

