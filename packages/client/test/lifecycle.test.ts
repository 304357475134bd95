/**
 * Driving a connection by hand: created closed and opened later, reconnected on demand, and
 * moved from one room to another without a new connection object.
 */
import { describe, expect, it, vi } from "vitest";
import { CloseCode, ErrorCode, errorName, connect, withMessages, type CloseInfo, type RoomConnection } from "../src/index";
import { fakeSockets, frameBytes, welcomeBytes, fakeTimeConnections } from "./helpers";

const now = () => Date.now();
const conns = fakeTimeConnections();

function setup(extra: { startClosed?: boolean } = {}) {
  const { Impl, sockets } = fakeSockets();
  const conn = connect("ws://h/", { kind: "arena", room: "a", name: "ann", WebSocketImpl: Impl, now, ...extra });
  conns.push(conn);
  const closes: CloseInfo[] = [];
  conn.on("close", (c) => closes.push(c));
  return { conn, sockets, closes };
}

describe("connection lifecycle by hand", () => {
  it("startClosed waits for open(); whenJoined waits with it", async () => {
    const { conn, sockets } = setup({ startClosed: true });
    expect(conn.status).toBe("idle");
    expect(sockets).toHaveLength(0);
    const joined = conn.whenJoined();
    conn.open();
    expect(conn.status).toBe("connecting");
    expect(sockets).toHaveLength(1);
    conn.open(); // no second socket while connecting
    expect(sockets).toHaveLength(1);
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ playerId: 5 }));
    await expect(joined).resolves.toMatchObject({ playerId: 5 });
  });

  it("reconnect() drops the socket and rejoins at once with the held token", () => {
    const { conn, sockets, closes } = setup();
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ token: "seat-1" }));
    conn.reconnect();
    expect(sockets[0]!.closedWith).toEqual({ code: 1000, reason: "reconnect" });
    expect(closes).toEqual([{ code: 1000, reason: "reconnect", willReconnect: true, deliberate: true }]);
    expect(conn.status).toBe("reconnecting");
    expect(sockets).toHaveLength(2); // no backoff wait
    sockets[1]!.serverOpen();
    expect(sockets[1]!.messages()[0]).toMatchObject({ kind: "hello", token: "seat-1" });
    sockets[1]!.serverSend(welcomeBytes({ token: "seat-1", reconnected: true }));
    expect(conn.status).toBe("joined");
    expect(conn.stats.reconnects).toBe(1);
  });

  it("reconnect() after the connection ended reclaims the seat; a stale retry does not add a socket", async () => {
    const { conn, sockets } = setup();
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ token: "seat-2" }));
    conn.close({ leave: false });
    expect(conn.status).toBe("closed");
    expect(sockets[0]!.messages().some((m) => m.kind === "leave")).toBe(false);
    conn.reconnect();
    expect(sockets).toHaveLength(2);
    sockets[1]!.serverOpen();
    expect(sockets[1]!.messages()[0]).toMatchObject({ kind: "hello", token: "seat-2" });
    // A drop schedules a retry; a reconnect by hand before it fires replaces it.
    sockets[1]!.serverClose(1006, "gone");
    conn.reconnect();
    expect(sockets).toHaveLength(3);
    // Past any first backoff delay, short of the new attempt's connect timeout (10 s).
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sockets).toHaveLength(3);
    expect(sockets.slice(0, 2).every((s) => s.readyState === 3)).toBe(true);
  });

  it("switchTo() leaves the room, joins another on the same connection, and listeners carry over", () => {
    const { conn, sockets, closes } = setup();
    const states: number[] = [];
    conn.on("state", (f) => states.push(f.tick));
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes({ token: "in-a", roomEpoch: 1000 }));
    sockets[0]!.serverSend(frameBytes({ tick: 1, time: 0 }));
    conn.switchTo("b", { kind: "arena2", ticket: "tk" });
    expect(sockets[0]!.messages().at(-1)).toEqual({ kind: "leave" });
    expect(closes.at(-1)).toMatchObject({ willReconnect: true, deliberate: true, reason: "switching rooms" });
    expect(conn.room).toBe("b");
    expect(conn.kind).toBe("arena2");
    expect(conn.welcome).toBeNull();
    expect(conn.status).toBe("connecting");
    expect(sockets[1]!.url).toBe("ws://h/rooms/arena2/b?ticket=tk");
    sockets[1]!.serverOpen();
    // A new room: no token of the old seat.
    expect(sockets[1]!.messages()[0]).toMatchObject({ kind: "hello", token: "" });
    sockets[1]!.serverSend(welcomeBytes({ token: "in-b", roomEpoch: 2000 }));
    sockets[1]!.serverSend(frameBytes({ tick: 7, time: 0 }));
    expect(states).toEqual([1, 7]);
    expect(conn.token).toBe("in-b");
    expect(conn.stats.reconnects).toBe(0); // a first join, not a rejoin
  });

  it("an event listener that switches rooms hears nothing more of the old room's frame", () => {
    const { conn, sockets } = setup();
    const heard: string[] = [];
    conn.on("event", (e) => {
      heard.push(`event ${(e.body as Uint8Array)[0]}`);
      if (conn.room === "a") conn.switchTo("b");
    });
    conn.on("state", (f) => heard.push(`state ${f.tick}`));
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes());
    sockets[0]!.serverSend(frameBytes({ tick: 1, time: 0, events: [new Uint8Array([1]), new Uint8Array([2])] }));
    expect(heard).toEqual(["event 1"]);
    expect(conn.status).toBe("connecting");
  });

  it("an error listener that closes on a failed ticket fetch keeps the connection closed", async () => {
    const { Impl, sockets } = fakeSockets();
    const ticket = () => Promise.reject(new Error("backend down"));
    const conn = connect("ws://h/", { kind: "arena", room: "a", WebSocketImpl: Impl, now, ticket, reconnect: { baseMs: 1, maxMs: 1 } });
    conns.push(conn);
    const closes: CloseInfo[] = [];
    conn.on("close", (c) => closes.push(c));
    conn.on("error", () => conn.close());
    await vi.advanceTimersByTimeAsync(100);
    expect(conn.status).toBe("closed");
    expect(sockets).toHaveLength(0);
    expect(closes).toEqual([{ code: 1000, reason: "client closed", willReconnect: false, deliberate: true }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a restart with no socket to drop reports no close: one close event per socket", async () => {
    const { conn, sockets, closes } = setup();
    sockets[0]!.serverOpen();
    sockets[0]!.serverClose(1006, "blip");
    expect(closes).toEqual([{ code: 1006, reason: "blip", willReconnect: true, deliberate: false }]);
    // During the backoff wait there is no socket: reconnect() starts one at once and reports nothing.
    conn.reconnect();
    expect(sockets).toHaveLength(2);
    expect(closes).toHaveLength(1);
    // While a ticket is being fetched there is no socket either.
    conn.switchTo("b", { ticket: () => new Promise<string>(() => {}) });
    expect(closes.at(-1)).toMatchObject({ reason: "switching rooms" }); // socket 2 dropped
    conn.switchTo("c", { ticket: "t" });
    expect(closes).toHaveLength(2);
    expect(sockets.map((s) => s.url)).toEqual(["ws://h/rooms/arena/a", "ws://h/rooms/arena/a", "ws://h/rooms/arena/c?ticket=t"]);
  });

  it("close() and switchTo() send leave once the hello is out, before the welcome arrives (the room may have seated us)", () => {
    const { conn, sockets } = setup();
    sockets[0]!.serverOpen();
    conn.switchTo("b");
    expect(sockets[0]!.messages().map((m) => m.kind)).toEqual(["hello", "leave"]);
    sockets[1]!.serverOpen();
    conn.close();
    expect(sockets[1]!.messages().map((m) => m.kind)).toEqual(["hello", "leave"]);
  });

  it("leave() then switchTo() joins another room after the connection closed", () => {
    const { conn, sockets } = setup();
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes());
    conn.leave();
    expect(conn.status).toBe("closed");
    expect(sockets[0]!.messages().at(-1)).toEqual({ kind: "leave" });
    conn.switchTo("c");
    expect(sockets).toHaveLength(2);
    expect(sockets[1]!.url).toBe("ws://h/rooms/arena/c");
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(welcomeBytes());
    expect(conn.status).toBe("joined");
  });

  it("close codes and error names come with the SDK", () => {
    expect(CloseCode.replaced).toBeGreaterThanOrEqual(4000);
    expect(errorName(ErrorCode.room_full)).toBe("room_full");
  });
});

describe("waiting for a seat and requests across drops", () => {
  it("whenJoined: every waiter gets the next welcome, across a drop, and fails when the connection ends", async () => {
    const { conn, sockets } = setup();
    const first = [conn.whenJoined(), conn.whenJoined()];
    sockets[0]!.serverOpen();
    sockets[0]!.serverClose(1006, "blip"); // a drop before any welcome: still waiting
    await vi.advanceTimersByTimeAsync(1000);
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(welcomeBytes({ playerId: 3 }));
    await expect(Promise.all(first)).resolves.toMatchObject([{ playerId: 3 }, { playerId: 3 }]);
    await expect(conn.whenJoined()).resolves.toMatchObject({ playerId: 3 });
    sockets[1]!.serverClose(1006, "blip");
    const next = conn.whenJoined();
    conn.close();
    await expect(next).rejects.toMatchObject({ name: "JoinError", code: "closed", closeCode: 1000, reason: "client closed" });
    await expect(conn.whenJoined()).rejects.toMatchObject({ code: "closed" });
  });

  it("a stats request fails as closed when its socket drops: the answer could only come on that socket", async () => {
    const { conn: plain, sockets } = setup();
    const conn = withMessages(plain);
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes());
    const stats = conn.requestStats();
    sockets[0]!.serverClose(1006, "blip");
    await expect(stats).rejects.toMatchObject({ name: "RequestError", code: "closed", message: "socket closed (1006)" });
    expect(conn.status).toBe("reconnecting");
    await expect(conn.requestStats()).rejects.toMatchObject({ code: "not_joined" });
  });

  it("reconnect() from a reconnecting listener makes one attempt, not two", async () => {
    const { conn, sockets } = setup();
    sockets[0]!.serverOpen();
    sockets[0]!.serverSend(welcomeBytes());
    conn.once("reconnecting", () => conn.reconnect());
    sockets[0]!.serverClose(1006, "blip");
    expect(sockets).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5_000); // past any backoff delay, short of the connect timeout
    expect(sockets).toHaveLength(2);
  });
});

describe("listeners and sockets that misbehave", () => {
  it("a throwing listener does not stop the others or the connection; its error still surfaces", () => {
    const caught: unknown[] = [];
    const spy = vi.spyOn(globalThis, "queueMicrotask").mockImplementation((cb) => {
      try {
        cb();
      } catch (e) {
        caught.push(e);
      }
    });
    try {
      const { conn, sockets } = setup();
      const seen: string[] = [];
      conn.on("welcome", () => {
        throw new Error("listener bug");
      });
      const off = conn.on("welcome", () => {
        seen.push("self-removing");
        off();
      });
      conn.on("welcome", () => seen.push("last"));
      sockets[0]!.serverOpen();
      sockets[0]!.serverSend(welcomeBytes());
      sockets[0]!.serverSend(welcomeBytes()); // a second delivery: the self-removed listener is gone
      expect(seen).toEqual(["self-removing", "last", "last"]);
      expect(caught).toHaveLength(2);
      expect(String(caught[0])).toContain("listener bug");
      expect(conn.status).toBe("joined");
    } finally {
      spy.mockRestore();
    }
  });

  it("a socket that cannot be created ends the connection with a local error, without retrying", async () => {
    const errors: string[] = [];
    class Broken {
      constructor() {
        throw new SyntaxError("bad URL");
      }
    }
    const conn = connect("not a url", { kind: "arena", room: "a", WebSocketImpl: Broken as never, now, startClosed: true });
    conns.push(conn);
    const closes: CloseInfo[] = [];
    conn.on("close", (c) => closes.push(c));
    conn.on("error", (e) => errors.push(`${e.name ?? errorName(e.code)} ${e.local}`));
    conn.open();
    expect(errors).toEqual(["bad_url true"]);
    expect(closes).toEqual([{ code: 1006, reason: "could not create socket", willReconnect: false, deliberate: false }]);
    expect(conn.status).toBe("closed");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(closes).toHaveLength(1);
  });
});
