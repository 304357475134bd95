import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ADMIN_ACTIONS, MAX_ADMIN_BODY_CHARS, MAX_BAN_SECONDS, MAX_NOTICE_CHARS, isAdminError, isAdminPath, parseAdminAction, readAdminAction, routeAdminPath } from "../src";

describe("admin paths", () => {
  it("are everything under /admin/api, and nothing else", () => {
    for (const p of ["/admin/api", "/admin/api/", "/admin/api/rooms", "/admin/api/nope/x"]) expect(isAdminPath(p), p).toBe(true);
    for (const p of ["/admin", "/admin/", "/admin/apix", "/adminapi", "/rooms/agar/r1", "/match/agar"]) expect(isAdminPath(p), p).toBe(false);
  });

  it("route to the room list, the audit log, one room, its metrics and its actions, each under its one method", () => {
    expect(routeAdminPath("/admin/api/rooms", "GET")).toEqual({ op: "rooms" });
    expect(routeAdminPath("/admin/api/audit", "GET")).toEqual({ op: "audit" });
    expect(routeAdminPath("/admin/api/rooms/agar/r1", "GET")).toEqual({ op: "room", kind: "agar", roomId: "r1" });
    expect(routeAdminPath("/admin/api/rooms/agar/r1/metrics", "GET")).toEqual({ op: "metrics", kind: "agar", roomId: "r1" });
    for (const op of ADMIN_ACTIONS) {
      expect(routeAdminPath(`/admin/api/rooms/ttt-json/r_2/${op}`, "POST")).toEqual({ op, kind: "ttt-json", roomId: "r_2" });
      expect(routeAdminPath(`/admin/api/rooms/ttt-json/r_2/${op}`, "GET")).toEqual({ method: "POST" });
    }
    expect(routeAdminPath("/admin/api/rooms", "POST")).toEqual({ method: "GET" });
    expect(routeAdminPath("/admin/api/rooms/agar/r1", "DELETE")).toEqual({ method: "GET" });
  });

  it("refuse anything else as not_found, bad ids included", () => {
    for (const p of ["/admin/api", "/admin/api/", "/admin/api/rooms/agar", "/admin/api/rooms/agar/r1/explode", "/admin/api/rooms/agar/a.b", "/admin/api/rooms/a%20b/r1", `/admin/api/rooms/agar/${"x".repeat(65)}`, "/admin/api/rooms/agar/r1/kick/extra"]) {
      const r = routeAdminPath(p, "GET");
      expect(isAdminError(r) && r.code, p).toBe("not_found");
    }
  });
});

describe("admin action bodies", () => {
  it("take what each action needs", () => {
    expect(readAdminAction("kick", { playerId: 3, reason: "afk" })).toEqual({ op: "kick", playerId: 3, reason: "afk" });
    expect(readAdminAction("kick", { playerId: 3 })).toEqual({ op: "kick", playerId: 3, reason: "" });
    expect(readAdminAction("ban", { playerId: 3, seconds: 60 })).toEqual({ op: "ban", playerId: 3, seconds: 60, reason: "" });
    expect(readAdminAction("ban", { identity: "jwt:abc", seconds: MAX_BAN_SECONDS, reason: "cheating" })).toEqual({ op: "ban", identity: "jwt:abc", seconds: MAX_BAN_SECONDS, reason: "cheating" });
    expect(readAdminAction("unban", { identity: "alice" })).toEqual({ op: "unban", identity: "alice" });
    expect(readAdminAction("lock", { locked: false })).toEqual({ op: "lock", locked: false });
    expect(readAdminAction("close", {})).toEqual({ op: "close", reason: "" });
    expect(readAdminAction("notice", { text: "restart in 5 min" })).toEqual({ op: "notice", text: "restart in 5 min" });
  });

  it("refuse a body that does not say it, with bad_request", () => {
    const bad: Array<[(typeof ADMIN_ACTIONS)[number], unknown]> = [
      ["kick", {}],
      ["kick", { playerId: 0 }],
      ["kick", { playerId: 1.5 }],
      ["kick", { playerId: "1" }],
      ["kick", { playerId: 1, reason: "x".repeat(201) }],
      ["kick", { playerId: 1, reason: 5 }],
      ["ban", { playerId: 1 }],
      ["ban", { playerId: 1, seconds: 0 }],
      ["ban", { playerId: 1, seconds: MAX_BAN_SECONDS + 1 }],
      ["ban", { playerId: 1, identity: "a", seconds: 5 }],
      ["ban", { seconds: 5 }],
      ["ban", { identity: "has space", seconds: 5 }],
      ["ban", { identity: "", seconds: 5 }],
      ["unban", {}],
      ["lock", { locked: "yes" }],
      ["lock", null],
      ["notice", { text: "" }],
      ["notice", { text: "   " }],
      ["notice", { text: "x".repeat(MAX_NOTICE_CHARS + 1) }],
      ["notice", "hello"],
    ];
    for (const [op, body] of bad) {
      const r = readAdminAction(op, body);
      expect(isAdminError(r) && r.code, `${op} ${JSON.stringify(body)}`).toBe("bad_request");
    }
  });

  it("never throw, and answer an action of the op asked for or a refusal, whatever the body", () =>
    fc.assert(
      fc.property(fc.constantFrom(...ADMIN_ACTIONS), fc.anything(), (op, body) => {
        const r = readAdminAction(op, body);
        expect(isAdminError(r) || r.op === op).toBe(true);
      }),
    ));

  it("are read from the text as it arrived: empty is {}, not JSON is bad_request, too long too_large", () => {
    expect(parseAdminAction("close", "")).toEqual({ op: "close", reason: "" });
    expect(parseAdminAction("kick", '{"playerId":2}')).toEqual({ op: "kick", playerId: 2, reason: "" });
    for (const text of ["{nope", '{"playerId":"2"}']) {
      const r = parseAdminAction("kick", text);
      expect(isAdminError(r) && r.code).toBe("bad_request");
    }
    const long = parseAdminAction("kick", "x".repeat(MAX_ADMIN_BODY_CHARS + 1));
    expect(isAdminError(long) && long.code).toBe("too_large");
  });
});
