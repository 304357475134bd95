import { describe, expect, it } from "vitest";
import { checkOrigin, normaliseOrigin, parseAllowedOrigins } from "../../src/join/originPolicy";

const URL_ = "https://rooms.example.com/rooms/agar/r1";
const req = (origin?: string) => new Request(URL_, { headers: origin === undefined ? {} : { Origin: origin } });

describe("origin policy", () => {
  it("parses the allow-list, normalising entries and ignoring junk", () => {
    const p = parseAllowedOrigins(" https://Play.Example.com , http://localhost:8787,https://a.example:443, not a url, ftp://x.y ,");
    expect(p.any).toBe(false);
    expect([...p.origins].sort()).toEqual(["http://localhost:8787", "https://a.example", "https://play.example.com"]);
    expect(parseAllowedOrigins("*").any).toBe(true);
    expect(parseAllowedOrigins(undefined).origins.size).toBe(0);
    expect(normaliseOrigin("null")).toBeNull();
  });

  it("lets non-browser clients (no Origin) through in every mode", () => {
    expect(checkOrigin(req(), "", false)).toEqual({ ok: true });
    expect(checkOrigin(req(), "https://play.example.com", false)).toEqual({ ok: true });
  });

  it("lets the gateway's own pages through even with an empty list outside DEV_MODE", () => {
    expect(checkOrigin(req("https://rooms.example.com"), "", false)).toEqual({ ok: true });
  });

  it("outside DEV_MODE refuses foreign origins unless listed", () => {
    expect(checkOrigin(req("https://evil.example"), "", false)).toEqual({ ok: false, origin: "https://evil.example" });
    expect(checkOrigin(req("https://evil.example"), "https://play.example.com", false).ok).toBe(false);
    expect(checkOrigin(req("https://play.example.com"), "https://play.example.com", false).ok).toBe(true);
    expect(checkOrigin(req("https://PLAY.example.com:443"), "https://play.example.com", false).ok).toBe(true);
    // Lookalikes: another port, scheme or a suffix are other origins.
    expect(checkOrigin(req("https://play.example.com:8443"), "https://play.example.com", false).ok).toBe(false);
    expect(checkOrigin(req("http://play.example.com"), "https://play.example.com", false).ok).toBe(false);
    expect(checkOrigin(req("https://play.example.com.evil.example"), "https://play.example.com", false).ok).toBe(false);
    expect(checkOrigin(req("null"), "https://play.example.com", false).ok).toBe(false);
    expect(checkOrigin(req("null"), "", false).ok).toBe(false);
  });

  it("in DEV_MODE an empty list allows any origin, a non-empty list still applies", () => {
    expect(checkOrigin(req("https://evil.example"), "", true).ok).toBe(true);
    expect(checkOrigin(req("null"), "", true).ok).toBe(true);
    expect(checkOrigin(req("https://evil.example"), "https://play.example.com", true).ok).toBe(false);
  });

  it("'*' allows every origin", () => {
    expect(checkOrigin(req("https://evil.example"), "*", false).ok).toBe(true);
  });
});
