/**
 * What operating a game asks of the SDK: a sign-in token from the game's own provider on joins
 * (`?token=`) and match requests (`Authorization: Bearer`), fresh for every attempt; the
 * operator's notices as an event; and the operator's closes (kicked, banned) ending the
 * connection instead of retrying.
 */
import { describe, expect, it, vi } from "vitest";
import { CloseCode, FrameWriter, OPERATOR_NOTICE, PROTOCOL_VERSION, encodeNotice, jsonDialect, refusalCloseReason } from "@tikron/protocol";
import { connect, type RoomConnection } from "../src/connect";
import { matchmaker } from "../src/matchmaker";
import { roomUrl } from "../src/roomUrl";
import { fakeSockets, fakeTimeConnections, welcomeBytes } from "./helpers";

const now = () => Date.now();
const conns = fakeTimeConnections();
function track<T extends RoomConnection<any>>(c: T): T {
  conns.push(c);
  return c;
}

describe("sign-in tokens", () => {
  it("go on the join URL as ?token=, fetched fresh before every attempt", async () => {
    expect(roomUrl("https://x", "k", "r", undefined, undefined, "a.b.c")).toBe("wss://x/rooms/k/r?token=a.b.c");
    const { Impl, sockets } = fakeSockets();
    let n = 0;
    track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, authToken: async () => `jwt${++n}`, reconnect: { baseMs: 1, maxMs: 1 } }));
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]!.serverClose(1006);
    await vi.advanceTimersByTimeAsync(5);
    expect(sockets.map((s) => s.url)).toEqual(["ws://h/rooms/k/r?token=jwt1", "ws://h/rooms/k/r?token=jwt2"]);
    track(connect("ws://h", { room: "r2", kind: "k", WebSocketImpl: Impl, now, authToken: "plain" }));
    expect(sockets[2]!.url).toBe("ws://h/rooms/k/r2?token=plain");
  });

  it("go to the matchmaker as Authorization: Bearer, fetched before every request", async () => {
    const seen: (string | null)[] = [];
    const fetcher: typeof fetch = async (_url, init) => {
      seen.push(new Headers(init?.headers).get("authorization"));
      return new Response("[]", { status: 200 });
    };
    let n = 0;
    const mm = matchmaker("https://h", { authToken: () => `jwt${++n}`, fetch: fetcher });
    await mm.getAvailableRooms("k");
    await mm.getAvailableRooms("k");
    expect(seen).toEqual(["Bearer jwt1", "Bearer jwt2"]);
  });
});

describe("the operator", () => {
  it("notices arrive as a notice event", () => {
    const { Impl, sockets } = fakeSockets();
    const conn = track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now }));
    const notices: unknown[] = [];
    conn.on("notice", (n) => notices.push(n));
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes());
    sockets[0]!.serverSend(encodeNotice(new FrameWriter(), OPERATOR_NOTICE, JSON.stringify({ text: "restart in 5 minutes" })).toBytes());
    // JSON rooms say it in JSON.
    const json = track(connect("ws://h", { room: "g", kind: "ttt-json", json: jsonDialect, WebSocketImpl: Impl, now }));
    json.on("notice", (n) => notices.push(n));
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(
      JSON.stringify({ t: "welcome", v: PROTOCOL_VERSION, playerId: 1, token: "j", tickMs: 0, syncIntervalMs: 0, serverTime: 5, roomEpoch: 1, reconnected: false, roomKind: "ttt-json", cap: 2, lastSeq: 0 }),
    );
    sockets[1]!.serverSend(JSON.stringify({ t: "notice", type: OPERATOR_NOTICE, data: { text: "back soon" } }));
    expect(notices).toEqual([
      { type: OPERATOR_NOTICE, data: { text: "restart in 5 minutes" } },
      { type: OPERATOR_NOTICE, data: { text: "back soon" } },
    ]);
  });

  it("a kick or a ban ends the connection: no reconnect, whenJoined's error names it", async () => {
    for (const [code, name] of [
      [CloseCode.kicked, "kicked"],
      [CloseCode.banned, "banned"],
    ] as const) {
      const { Impl, sockets } = fakeSockets();
      const conn = track(connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, reconnect: { baseMs: 1, maxMs: 1 } }));
      sockets[0]!.serverOpen();
      sockets[0]!.serverClose(code, refusalCloseReason("banned from this room: cheating", code === CloseCode.banned ? 60_000 : 0));
      await expect(conn.whenJoined()).rejects.toMatchObject({ code: name, closeCode: code, reason: "banned from this room: cheating", retryAfterMs: code === CloseCode.banned ? 60_000 : 0 });
      await vi.advanceTimersByTimeAsync(50);
      expect(sockets).toHaveLength(1);
      expect(conn.status).toBe("closed");
    }
  });
});
