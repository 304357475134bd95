import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CloseCode, MAX_RELAYS, REFUSAL_CAUSES, ROOM_ID_PATTERN, refusalCloseCode } from "@tikron/protocol";
import { identifyCaller, SIGN_IN_RETRY_MS, type CallerVerdict } from "../../src/auth";
import type { GameDefinition } from "../../src/gameDefinition";
import { relayIndexFor } from "../../src/placement/relayIndex";
import { mintRoomTicket } from "../../src/ticket";
import {
  admitJoin,
  JOIN_REFUSALS,
  mintSeatReservation,
  parseObjectName,
  relayObjectName,
  reservationSecret,
  roomObjectName,
  routeJoin,
  SEAT_RESERVATION_TTL_SECONDS,
  UNCONFIGURED_TEXT,
  type JoinGateConfig,
  type JoinRefusal,
  type JoinVerdict,
} from "../../src/join";

const SECRET = "join-gate-test-secret-0123456789";
const def = (defaults: GameDefinition["defaults"] = {}): GameDefinition => ({ kind: "agar", defaults, create: () => null as never }) as GameDefinition;
const games = { agar: def(), big: def({ relays: 2 }) };

/** A production deployment with a ticket secret: the core's credential rule, as both hosts call it. */
function config(over: Partial<JoinGateConfig> = {}, url?: () => URL): JoinGateConfig {
  return {
    devMode: false,
    games,
    reservationSecret: SECRET,
    caller: (kind, roomId) => identifyCaller({ url: url?.() ?? new URL(`https://h/rooms/${kind}/${roomId}`) }, { ticket: { secret: SECRET, kind, roomId }, jwt: null, required: true }),
    relays: {},
    ...over,
  };
}

/** The gate's verdict on `path` (an upgrade unless told), with the credential rule reading the same URL. */
async function gate(path: string, over: Partial<JoinGateConfig> = {}, upgrade = true, headers: Record<string, string> = {}): Promise<JoinVerdict | null> {
  const url = new URL(`https://h${path}`);
  const h = new Headers(headers);
  const base = config(over, () => url);
  const caller = over.caller ?? ((kind: string, roomId: string) => identifyCaller({ url, headers: h }, { ticket: { secret: SECRET, kind, roomId }, jwt: null, required: !base.devMode }));
  return admitJoin({ url, headers: h, upgrade }, { ...base, caller });
}

async function refusalOf(path: string, over: Partial<JoinGateConfig> = {}, upgrade = true, headers: Record<string, string> = {}): Promise<JoinRefusal> {
  const v = await gate(path, over, upgrade, headers);
  if (v === null || v.ok) throw new Error(`expected a refusal, got ${JSON.stringify(v)}`);
  return v.refusal;
}

const ticket = (roomId = "r1", playerId = "alice", kind = "agar") => mintRoomTicket({ secret: SECRET, kind, roomId, playerId, ttlSeconds: 60 });
const reservation = (roomId = "r1", identity = "alice", kind = "agar") => mintSeatReservation(SECRET, kind, { roomId, identity, reservationId: "res-0123456789abcdef" });

describe("the join refusals' one table", () => {
  it("names every refusal cause a host counts, and answers each HTTP status with the close the protocol gives it, but where it says otherwise", () => {
    const causes = new Set(Object.values(JOIN_REFUSALS).map((r) => r.cause));
    for (const c of REFUSAL_CAUSES) expect(causes.has(c), c).toBe(true);
    const ownClose = new Set(["sign_in_unavailable", "unconfigured"]);
    for (const [kind, row] of Object.entries(JOIN_REFUSALS)) {
      if (row.cause === null || ownClose.has(kind)) continue;
      expect(row.close, kind).toBe(refusalCloseCode(row.status));
    }
    expect(JOIN_REFUSALS.sign_in_unavailable).toEqual({ cause: "unavailable", status: 503, close: CloseCode.join_throttled, retryAfterMs: SIGN_IN_RETRY_MS });
    expect(JOIN_REFUSALS.unconfigured).toEqual({ cause: "unavailable", status: 503, close: CloseCode.unavailable, retryAfterMs: 0 });
  });
});

describe("the join gate: the route", () => {
  it("refuses an unknown kind (404), a bad room id (400), overrides or stats outside DEV_MODE (403), and passes over a path that is not a room's", () => {
    const refusal = (path: string, devMode = false, joinsOnly = false) => {
      const r = routeJoin(new URL(`https://h${path}`), { devMode, games, joinsOnly });
      return r !== null && "refusal" in r ? r.refusal : r;
    };
    expect(refusal("/rooms/chess/r1")).toMatchObject({ kind: "unknown_kind", cause: "not_found", status: 404, close: CloseCode.not_found, message: 'unknown room kind "chess"' });
    expect(refusal("/rooms/__proto__/r1")).toMatchObject({ kind: "unknown_kind" });
    expect(refusal("/rooms/agar/a.b")).toMatchObject({ kind: "bad_path", cause: "bad_request", status: 400, close: CloseCode.bad_request });
    expect(refusal("/rooms/agar/%E0%A4%A")).toMatchObject({ kind: "bad_path" });
    expect(refusal("/rooms/agar/r1?cap=5")).toMatchObject({ kind: "dev_mode_only", cause: "forbidden", status: 403, close: CloseCode.forbidden });
    expect(refusal("/rooms/agar/r1/stats")).toMatchObject({ kind: "dev_mode_only" });
    expect(refusal("/rooms/agar/r1/stats", true, true)).toMatchObject({ kind: "not_a_join", cause: "bad_request", status: 400 });
    expect(refusal("/rooms/agar/r1/bots", true, true)).toMatchObject({ kind: "not_a_join" });
    expect(refusal("/elsewhere")).toBeNull();
    expect(refusal("/rooms/agar/r1?cap=5", true)).toMatchObject({ kind: "agar", roomId: "r1", overrides: { options: { cap: 5 } } });
  });
});

describe("the join gate: credentials", () => {
  it("lets a ticket's player in to the room's object, remembering the verified ticket", async () => {
    const t = await ticket();
    expect(await gate(`/rooms/agar/r1?ticket=${t}`)).toMatchObject({ ok: true, seat: { identity: "alice" }, credential: t, objectName: "agar:r1" });
  });

  it("refuses a missing, malformed, forged, expired or other room's ticket as unauthorized, each under its cause", async () => {
    const good = await ticket();
    const forged = await mintRoomTicket({ secret: "another-secret-0123456789", kind: "agar", roomId: "r1", playerId: "a", ttlSeconds: 60 });
    const expired = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "a", ttlSeconds: 1, nowMs: Date.now() - 5_000 });
    const cases: [string, string][] = [
      ["/rooms/agar/r1", "no_credential"],
      ["/rooms/agar/r1?ticket=garbage", "malformed"],
      [`/rooms/agar/r1?ticket=${forged}`, "forged"],
      [`/rooms/agar/r1?ticket=${expired}`, "expired"],
      [`/rooms/agar/r2?ticket=${good}`, "wrong_room"],
      [`/rooms/agar/r1?ticket=${good}&token=x.y.z`, "two_identities"],
    ];
    for (const [path, cause] of cases) {
      expect(await refusalOf(path), path).toMatchObject({ kind: cause, cause, status: 401, close: CloseCode.unauthorized, retryAfterMs: 0 });
    }
    expect((await refusalOf(`/rooms/agar/r2?ticket=${good}`)).message).toMatch(/another room/);
  });

  it("426s a join without an upgrade (not counted), but takes bots (POST) with a ticket", async () => {
    const t = await ticket();
    expect(await refusalOf(`/rooms/agar/r1?ticket=${t}`, {}, false)).toMatchObject({ kind: "upgrade_required", cause: null, status: 426 });
    expect(await gate(`/rooms/agar/r1/bots?ticket=${t}`, {}, false)).toMatchObject({ ok: true, seat: { identity: "alice" }, objectName: "agar:r1" });
  });

  it("asks the sign-in provider's callers to come back, and refuses joins on a host that cannot check (503)", async () => {
    const down: CallerVerdict = { ok: false, via: "jwt", reason: "jwks_unavailable", status: 503, message: "sign-in cannot be checked right now; try again shortly" };
    expect(await refusalOf("/rooms/agar/r1", { caller: async () => down })).toMatchObject({ kind: "sign_in_unavailable", cause: "unavailable", close: CloseCode.join_throttled, retryAfterMs: SIGN_IN_RETRY_MS });
    const unconfigured: CallerVerdict = { ok: false, via: null, reason: "unconfigured", status: 503, message: "sign-in is not configured on this server" };
    expect(await refusalOf("/rooms/agar/r1", { caller: async () => unconfigured })).toMatchObject({ kind: "unconfigured", status: 503, close: CloseCode.unavailable, message: unconfigured.message });
    const throwing = () => Promise.reject(new Error("secret too short"));
    expect(await refusalOf("/rooms/agar/r1", { caller: throwing })).toMatchObject({ kind: "unconfigured", message: UNCONFIGURED_TEXT });
  });

  it("checks the origin before the credential, and answers a remembered credential before verifying it", async () => {
    let asked = 0;
    const counting = async (): Promise<CallerVerdict> => (asked++, { ok: true, via: null, identity: null });
    expect(await refusalOf("/rooms/agar/r1", { refusedOrigin: () => "https://evil.example", caller: counting })).toMatchObject({ kind: "foreign_origin", cause: "forbidden", close: CloseCode.forbidden, message: "origin https://evil.example may not open room sockets" });
    const t = await ticket();
    const wait: JoinRefusal = { kind: "throttled", cause: "throttled", status: 429, close: CloseCode.join_throttled, retryAfterMs: 3000, message: "refused by the room; retry later" };
    const seen: string[] = [];
    expect(await refusalOf(`/rooms/agar/r1?ticket=${t}`, { caller: counting, remembered: async (c) => (seen.push(c), wait) })).toBe(wait);
    expect(seen).toEqual([t]);
    expect(asked).toBe(0);
  });

  it("in DEV_MODE lets an anonymous caller in without naming a credential to remember", async () => {
    expect(await gate("/rooms/agar/r1?ticket=unchecked", { devMode: true, caller: async () => ({ ok: true, via: null, identity: null }) })).toMatchObject({ ok: true, seat: {}, credential: null });
  });
});

describe("the join gate: seat reservations", () => {
  it("binds the join to the reservation's player and seat", async () => {
    const r = await reservation();
    expect(await gate(`/rooms/agar/r1?reservation=${r}`)).toMatchObject({ ok: true, seat: { identity: "alice", reservation: "res-0123456789abcdef" }, credential: null, objectName: "agar:r1" });
    expect(await gate(`/rooms/agar/r1?reservation=${r}&ticket=${await ticket("r1", "alice")}`)).toMatchObject({ ok: true, seat: { identity: "alice" } });
  });

  it("refuses another room's reservation, a ticket sent as one, one with another player's ticket, and any without a secret", async () => {
    const r = await reservation();
    expect(await refusalOf(`/rooms/agar/r2?reservation=${r}`)).toMatchObject({ kind: "wrong_room", status: 401, close: CloseCode.unauthorized, message: expect.stringMatching(/^seat reservation refused/) });
    expect(await refusalOf(`/rooms/agar/r1?reservation=${await ticket()}`)).toMatchObject({ kind: "malformed", close: CloseCode.unauthorized });
    expect(await refusalOf(`/rooms/agar/r1?reservation=${r}&ticket=${await ticket("r1", "mallory")}`)).toMatchObject({ kind: "two_identities", close: CloseCode.unauthorized });
    expect(await refusalOf(`/rooms/agar/r1?reservation=${r}`, { reservationSecret: null })).toMatchObject({ kind: "unconfigured", status: 503, close: CloseCode.unavailable, message: UNCONFIGURED_TEXT });
    expect(await refusalOf(`/rooms/agar/r1?reservation=${r}`, {}, false)).toMatchObject({ kind: "upgrade_required", status: 426 });
  });

  it("signs reservations with the ticket secret, else DEV_MODE's public one, else none; good for an hour", async () => {
    expect(reservationSecret(SECRET, false)).toBe(SECRET);
    expect(reservationSecret(undefined, false)).toBeNull();
    expect(reservationSecret(undefined, true)).not.toBeNull();
    expect(SEAT_RESERVATION_TTL_SECONDS).toBe(3600);
  });
});

describe("the join gate: where a join goes", () => {
  it("sends a join of a room relayed from its start to relay relayIndexFor(identity, K); stats and bots to the room's object", async () => {
    const relays = { ROOM_RELAYS: "agar=3" };
    for (const player of ["alice", "bob", "carol", "dave"]) {
      const i = relayIndexFor(player, 3);
      expect(await gate(`/rooms/agar/r1?ticket=${await ticket("r1", player)}`, { relays }), player).toMatchObject({ ok: true, relay: i, objectName: `agar:r1#relay${i}` });
    }
    const dev = { devMode: true, relays, caller: async (): Promise<CallerVerdict> => ({ ok: true, via: null, identity: null }) };
    expect(await gate("/rooms/agar/r1/stats", dev, false)).toMatchObject({ ok: true, objectName: "agar:r1" });
    expect(await gate("/rooms/agar/r1/bots", dev, false)).toMatchObject({ ok: true, objectName: "agar:r1" });
    expect(await gate("/rooms/big/r1", dev)).toMatchObject({ ok: true, objectName: expect.stringMatching(/^big:r1#relay[01]$/) });
  });

  it("relays nothing on a host without relays, and refuses joins on a malformed ROOM_RELAYS as unconfigured", async () => {
    const dev = { devMode: true, caller: async (): Promise<CallerVerdict> => ({ ok: true, via: null, identity: "p" }) };
    expect(await gate("/rooms/big/r1", { ...dev, relays: null })).toMatchObject({ ok: true, objectName: "big:r1" });
    expect((await gate("/rooms/big/r1", { ...dev, relays: null })) as object).not.toHaveProperty("relay");
    expect(await refusalOf("/rooms/agar/r1", { ...dev, relays: { ROOM_RELAYS: "agar=lots" } })).toMatchObject({ kind: "unconfigured", message: UNCONFIGURED_TEXT });
  });
});

describe("the objects' one naming rule", () => {
  it("names a room's object kind:roomId and its relays kind:roomId#relayI, and parses them back", () => {
    expect(roomObjectName("agar", "r1")).toBe("agar:r1");
    expect(relayObjectName("agar", "r1", 2)).toBe("agar:r1#relay2");
    expect(parseObjectName("agar:r1#relay2")).toEqual({ kind: "agar", roomId: "r1", relay: 2 });
    expect(parseObjectName("a:b:r1")).toEqual({ kind: "a:b", roomId: "r1" });
    for (const bad of ["agar", ":r1", "agar:", "agar:a.b", "agar:r1#relay", "agar:r1#relay01"]) expect(parseObjectName(bad), bad).toBeNull();
  });

  it("property: every route the gate accepts names an object that parses back to its kind, room and relay", async () => {
    // "." and ".." are dot segments: a URL resolves them away, so no join can name such a kind.
    const kinds = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k !== "." && k !== "..");
    await fc.assert(
      fc.asyncProperty(kinds, fc.stringMatching(ROOM_ID_PATTERN), fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }), fc.integer({ min: 0, max: MAX_RELAYS }), async (kind, roomId, identity, relays) => {
        const url = new URL(`https://h/rooms/${encodeURIComponent(kind)}/${roomId}?relays=${relays}`);
        const v = await admitJoin({ url, headers: new Headers(), upgrade: true }, { devMode: true, games: { [kind]: def() }, reservationSecret: null, relays: {}, caller: async () => ({ ok: true, via: null, identity: identity ?? null }) });
        expect(v).toMatchObject({ ok: true });
        if (v === null || !v.ok) return;
        const parsed = parseObjectName(v.objectName);
        if (relays === 0) return void expect(parsed).toEqual({ kind, roomId });
        expect(parsed).toEqual({ kind, roomId, relay: v.relay });
        expect(v.relay).toBeLessThan(relays);
        // An identity's joins all land on its relay; anonymous ones go round.
        if (identity !== undefined) expect(v.relay).toBe(relayIndexFor(identity, relays));
      }),
      { numRuns: 300 },
    );
  });
});
