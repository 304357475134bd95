import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_TICKET_TTL_SECONDS, mintRoomTicket, verifyRoomTicket } from "../src/ticket";

const SECRET = "test-secret-0123456789abcdef";
const NOW = 1_900_000_000_000;
const room = { secret: SECRET, kind: "agar", roomId: "r1", nowMs: NOW };

function mint(overrides: Partial<Parameters<typeof mintRoomTicket>[0]> = {}): Promise<string> {
  return mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "alice", ttlSeconds: 60, nowMs: NOW, ...overrides });
}

function decodePayload(ticket: string): Record<string, unknown> {
  const b64 = ticket.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(Buffer.from(b64, "base64").toString("utf8")) as Record<string, unknown>;
}

function encodePayload(obj: unknown): string {
  return Buffer.from(JSON.stringify(obj)).toString("base64url");
}

describe("room tickets", () => {
  it("round-trips: a minted ticket verifies for its room and names the player and expiry", async () => {
    const ticket = await mint();
    expect(ticket).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(decodePayload(ticket)).toEqual({ v: 1, k: "agar", r: "r1", p: "alice", e: NOW / 1000 + 60 });
    const verdict = await verifyRoomTicket(ticket, room);
    expect(verdict).toEqual({ ok: true, claims: { kind: "agar", roomId: "r1", playerId: "alice", expiresAt: NOW / 1000 + 60 } });
  });

  it("expires at exactly its expiry second", async () => {
    const ticket = await mint({ ttlSeconds: 60 });
    expect((await verifyRoomTicket(ticket, { ...room, nowMs: NOW + 59_999 })).ok).toBe(true);
    expect(await verifyRoomTicket(ticket, { ...room, nowMs: NOW + 60_000 })).toEqual({ ok: false, reason: "expired" });
  });

  it("is refused for another room or another kind", async () => {
    const ticket = await mint();
    expect(await verifyRoomTicket(ticket, { ...room, roomId: "r2" })).toEqual({ ok: false, reason: "wrong_room" });
    expect(await verifyRoomTicket(ticket, { ...room, kind: "chess" })).toEqual({ ok: false, reason: "wrong_room" });
  });

  it("is refused when signed with another secret", async () => {
    const ticket = await mint({ secret: "another-secret-0123456789" });
    expect(await verifyRoomTicket(ticket, room)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("is refused when the payload is re-signed-free edited (player, room, expiry)", async () => {
    const ticket = await mint();
    const sig = ticket.split(".")[1]!;
    const claims = decodePayload(ticket);
    for (const edit of [{ p: "mallory" }, { r: "r2" }, { e: (claims.e as number) + 3600 }]) {
      const forged = `${encodePayload({ ...claims, ...edit })}.${sig}`;
      expect(await verifyRoomTicket(forged, { ...room, roomId: (edit.r as string) ?? "r1" })).toEqual({ ok: false, reason: "bad_signature" });
    }
  });

  it("tells a missing ticket apart from a malformed one", async () => {
    expect(await verifyRoomTicket(null, room)).toEqual({ ok: false, reason: "missing" });
    expect(await verifyRoomTicket("", room)).toEqual({ ok: false, reason: "missing" });
    for (const bad of ["x", "a.b", ".", "a..b", "a.b.c", "ab=.cd", `${"a".repeat(2000)}.${"b".repeat(43)}`, `abc.${"+".repeat(43)}`]) {
      expect(await verifyRoomTicket(bad, room), bad.slice(0, 20)).toEqual({ ok: false, reason: "malformed" });
    }
  });

  it("refuses correctly signed payloads that are not valid claims", async () => {
    // Sign arbitrary payloads with the real key to reach the claim checks behind the signature.
    const { webcrypto } = await import("node:crypto");
    const key = await webcrypto.subtle.importKey("raw", new TextEncoder().encode(SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const sign = async (payload: string) =>
      `${payload}.${Buffer.from(await webcrypto.subtle.sign("HMAC", key, new TextEncoder().encode(`tk1.${payload}`))).toString("base64url")}`;
    const good = { v: 1, k: "agar", r: "r1", p: "alice", e: NOW / 1000 + 60 };
    expect((await verifyRoomTicket(await sign(encodePayload(good)), room)).ok).toBe(true);
    for (const bad of [{ ...good, v: 2 }, { ...good, p: "" }, { ...good, p: "has space" }, { ...good, e: "soon" }, { ...good, e: 1.5 }, { ...good, k: 5 }, [1, 2], null]) {
      expect(await verifyRoomTicket(await sign(encodePayload(bad)), room)).toEqual({ ok: false, reason: "malformed" });
    }
    expect(await verifyRoomTicket(await sign(Buffer.from("not json").toString("base64url")), room)).toEqual({ ok: false, reason: "malformed" });
  });

  it("refuses every single-character mutation of a valid ticket", async () => {
    const ticket = await mint();
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: ticket.length - 1 }), fc.constantFrom(...alphabet), async (at, ch) => {
        fc.pre(ticket[at] !== ch);
        const mutated = ticket.slice(0, at) + ch + ticket.slice(at + 1);
        const verdict = await verifyRoomTicket(mutated, room);
        // Base64 padding bits: the last character of a segment can change without changing the
        // decoded bytes; such a mutation is the same ticket, anything else must be refused.
        if (verdict.ok) expect(Buffer.from(mutated.split(".")[1]!, "base64url")).toEqual(Buffer.from(ticket.split(".")[1]!, "base64url"));
        if (verdict.ok) expect(Buffer.from(mutated.split(".")[0]!, "base64url")).toEqual(Buffer.from(ticket.split(".")[0]!, "base64url"));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses weak secrets and out-of-range input when minting", async () => {
    await expect(mint({ secret: "short" })).rejects.toThrow(/TICKET_SECRET/);
    await expect(mint({ ttlSeconds: 0 })).rejects.toThrow(/ttlSeconds/);
    await expect(mint({ ttlSeconds: MAX_TICKET_TTL_SECONDS + 1 })).rejects.toThrow(/ttlSeconds/);
    await expect(mint({ playerId: "" })).rejects.toThrow(/playerId/);
    await expect(mint({ playerId: "a b" })).rejects.toThrow(/playerId/);
    await expect(mint({ roomId: "x".repeat(65) })).rejects.toThrow(/roomId/);
    await expect(verifyRoomTicket(await mint(), { ...room, secret: "" })).rejects.toThrow(/TICKET_SECRET/);
  });

  it("refuses a validly signed ticket whose expiry is further away than a ticket may live", async () => {
    const tenYears = 10 * 365 * 86_400_000;
    const far = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "alice", ttlSeconds: 60, nowMs: NOW + tenYears });
    expect(await verifyRoomTicket(far, room)).toEqual({ ok: false, reason: "too_long" });
    // A day's ticket minted by a backend whose clock runs a minute ahead is still fine.
    const day = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "alice", ttlSeconds: MAX_TICKET_TTL_SECONDS, nowMs: NOW + 60_000 });
    expect(await verifyRoomTicket(day, room)).toMatchObject({ ok: true });
  });
});
