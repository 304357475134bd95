import type { GameDefinition } from "@tikron/core";
import { describe, expect, it } from "vitest";
import { routeGatewayRequest, type GatewayEnv } from "../src/gateway";
import type { RoomReport } from "@tikron/protocol";
import { LobbyRegistry, readRoomReport } from "../src/lobbyRegistry";
import { LOBBY_REFRESH_MS, LOBBY_REPORT_MIN_MS, LobbyReporter } from "../src/lobbyReporter";

const report = (roomId: string, players = 1, extra: Partial<RoomReport> = {}): RoomReport => ({ kind: "agar", roomId, players, bots: 0, cap: 20, startedAt: 1000, ...extra });

describe("lobby registry", () => {
  it("lists reported rooms, drops emptied and expired ones, and stays bounded", () => {
    const reg = new LobbyRegistry(3, 10_000);
    reg.report(report("a"), 0);
    reg.report(report("b", 2, { startedAt: 2000 }), 0);
    expect(reg.list(1).map((e) => e.roomId)).toEqual(["b", "a"]);
    reg.report(report("a", 0), 5);
    expect(reg.list(6).map((e) => e.roomId)).toEqual(["b"]);
    for (const id of ["c", "d", "e"]) reg.report(report(id), 100);
    // Bounded: the stalest entry (b, reported at 0) made room.
    expect(reg.list(101).map((e) => e.roomId).sort()).toEqual(["c", "d", "e"]);
    reg.report(report("c"), 9000);
    expect(reg.list(10_500).map((e) => e.roomId)).toEqual(["c"]);
  });

  it("keeps a room with only bots, and refuses malformed reports", () => {
    const reg = new LobbyRegistry();
    reg.report(report("bots-only", 0, { bots: 5 }), 0);
    expect(reg.list(1)).toHaveLength(1);
    expect(readRoomReport(report("ok"))).toEqual(report("ok"));
    for (const bad of [null, "x", { ...report("x"), roomId: "a b" }, { ...report("x"), players: -1 }, { ...report("x"), cap: 1.5 }, { ...report("x"), kind: 3 }]) {
      expect(readRoomReport(bad)).toBeNull();
    }
  });
});

describe("lobby reporter", () => {
  function harness(refresh = true) {
    let now = 0;
    const timers: { at: number; fn: () => void; id: number }[] = [];
    let nextId = 1;
    const state = { players: 1, bots: 0 };
    const sent: RoomReport[] = [];
    const r = new LobbyReporter({
      current: () => report("r", state.players, { bots: state.bots }),
      send: (x) => sent.push(x),
      now: () => now,
      setTimer: (fn, ms) => {
        const t = { at: now + ms, fn, id: nextId++ };
        timers.push(t);
        return t.id;
      },
      clearTimer: (id) => {
        const i = timers.findIndex((t) => t.id === id);
        if (i >= 0) timers.splice(i, 1);
      },
      refresh,
    });
    const advance = (ms: number) => {
      const end = now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const t = timers[0];
        if (!t || t.at > end) break;
        timers.shift();
        now = t.at;
        t.fn();
      }
      now = end;
    };
    return { r, state, sent, advance, timers };
  }

  it("sends the first change at once, folds a burst into one later report, and an emptied room at once", () => {
    const h = harness();
    h.r.changed();
    expect(h.sent.map((s) => s.players)).toEqual([1]);
    for (let i = 2; i <= 10; i++) {
      h.state.players = i;
      h.r.changed();
      h.advance(100);
    }
    expect(h.sent).toHaveLength(1);
    h.advance(LOBBY_REPORT_MIN_MS);
    expect(h.sent.map((s) => s.players)).toEqual([1, 10]);
    h.state.players = 0;
    h.r.changed();
    expect(h.sent.at(-1)!.players).toBe(0);
    expect(h.timers).toHaveLength(0);
  });

  it("refreshes a room with players every minute (ticking rooms only)", () => {
    const h = harness();
    h.r.changed();
    h.advance(LOBBY_REFRESH_MS * 3 + 1);
    expect(h.sent).toHaveLength(4);
    const q = harness(false);
    q.r.changed();
    q.advance(LOBBY_REFRESH_MS * 3 + 1);
    expect(q.sent).toHaveLength(1);
  });
});

describe("gateway: lobby and bots routes", () => {
  const games = {
    agar: { kind: "agar", defaults: {}, create: () => null as never, bots: { inputEveryMs: 100, create: () => ({ next: () => null }) } },
    open: { kind: "open", defaults: {}, create: () => null as never, bots: { inputEveryMs: 100, create: () => ({ next: () => null }), allowInProduction: true } },
  } satisfies Record<string, GameDefinition>;
  function env(vars: Partial<GatewayEnv>) {
    const routed: string[] = [];
    const ns = (tag: string) => ({
      idFromName: (name: string) => ({ name }),
      get: (id: { name: string }) => ({
        fetch: async (req: Request) => {
          routed.push(`${tag}:${id.name}:${req.method}:${new URL(req.url).pathname}`);
          return Response.json({ rooms: [] });
        },
      }),
    });
    return { env: { ROOMS: ns("room"), LOBBY: ns("lobby"), DEV_MODE: "true", ...vars } as unknown as GatewayEnv, routed };
  }
  const call = (path: string, e: GatewayEnv, method = "GET") => routeGatewayRequest(new Request(`https://g.example.com${path}`, { method }), e, games);

  it("serves GET /lobby/rooms from the one registry object", async () => {
    const e = env({});
    expect((await call("/lobby/rooms", e.env)).status).toBe(200);
    expect(e.routed).toEqual(["lobby:lobby:GET:/rooms"]);
    expect((await call("/lobby/rooms", e.env, "POST")).status).toBe(405);
  });

  it("routes POST bots to the room in DEV_MODE; outside it only for kinds that allow it", async () => {
    const dev = env({});
    expect((await call("/rooms/agar/r1/bots?count=3", dev.env, "POST")).status).toBe(200);
    expect(dev.routed).toEqual(["room:agar:r1:POST:/rooms/agar/r1/bots"]);
    expect((await call("/rooms/agar/r1/bots?count=3", dev.env)).status).toBe(405);
    const prod = env({ DEV_MODE: "false", TICKET_SECRET: "gateway-test-secret-0123456789" });
    expect((await call("/rooms/agar/r1/bots?count=3", prod.env, "POST")).status).toBe(403);
    // Allowed kind: still needs a ticket like a join.
    expect((await call("/rooms/open/r1/bots?count=3", prod.env, "POST")).status).toBe(401);
    expect(prod.routed).toEqual([]);
  });
});
