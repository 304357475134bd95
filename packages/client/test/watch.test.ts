import { FrameWriter, beginBundle, readSpectate, writeBundledFrame } from "@tikron/protocol";
import { describe, expect, it, vi } from "vitest";
import { watch } from "../src/watch";
import { decodeSent, fakeSockets, fakeTimeConnections, frameBytes, pongBytes, welcomeBytes } from "./helpers";

const now = () => Date.now(); // faked together with the timers
const conns = fakeTimeConnections();

function bundle(frames: Uint8Array[]): Uint8Array {
  const w = beginBundle(new FrameWriter());
  for (const f of frames) writeBundledFrame(w, f);
  return w.toBytes();
}

/** A watch connection on a fake socket, welcomed, with the ticks of its `state` events and when each came. */
function watched(delay = 1) {
  const { Impl, sockets } = fakeSockets();
  const conn = watch("http://game.test/", { room: "r", kind: "arena", delay, follow: 3, WebSocketImpl: Impl, now });
  conns.push(conn);
  const states: { tick: number; at: number }[] = [];
  conn.on("state", (f) => states.push({ tick: f.tick, at: Date.now() }));
  sockets[0]!.serverOpen();
  sockets[0]!.serverSend(welcomeBytes({ playerId: 0, token: "" }));
  return { conn, sockets, states };
}

describe("watch: bundles", () => {
  it("decodes every frame of a bundle, in order, played out at their room times", () => {
    const { conn, sockets, states } = watched();
    const t0 = Date.now();
    sockets[0]!.serverSend(bundle([frameBytes({ tick: 10, time: 1000, delta: new Uint8Array([1]) }), frameBytes({ tick: 11, time: 1050, delta: new Uint8Array([2]) })]));
    expect(states.map((s) => s.tick)).toEqual([10]);
    vi.advanceTimersByTime(49);
    expect(states).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(states).toEqual([
      { tick: 10, at: t0 },
      { tick: 11, at: t0 + 50 },
    ]);
    // The next bundle, 100 ms on: its frames keep the cadence.
    vi.advanceTimersByTime(50);
    sockets[0]!.serverSend(bundle([frameBytes({ tick: 12, time: 1100 }), frameBytes({ tick: 13, time: 1150 }), frameBytes({ tick: 14, time: 1200 })]));
    vi.advanceTimersByTime(200);
    expect(states.map((s) => [s.tick, s.at - t0])).toEqual([
      [10, 0],
      [11, 50],
      [12, 100],
      [13, 150],
      [14, 200],
    ]);
    expect(conn.stats.frames).toBe(5);
    expect(conn.status).toBe("joined");
  });

  it("keeps order: a welcome waits behind the frames before it, a pong does not; a lone frame passes straight through", () => {
    const { sockets, states, conn } = watched();
    const welcomes: number[] = [];
    conn.on("welcome", () => welcomes.push(states.length));
    sockets[0]!.serverSend(bundle([frameBytes({ tick: 1, time: 0 }), frameBytes({ tick: 2, time: 50 }), frameBytes({ tick: 3, time: 100 })]));
    sockets[0]!.serverSend(pongBytes(1, 2));
    expect(states).toHaveLength(1);
    // A second welcome (a target switched): the frames of the old target are shown first.
    sockets[0]!.serverSend(welcomeBytes({ playerId: 0, token: "" }));
    expect(welcomes).toEqual([3]);
    sockets[0]!.serverSend(frameBytes({ tick: 9, time: 500 }));
    expect(states.map((s) => s.tick)).toEqual([1, 2, 3, 9]);
  });

  it("a bundle it cannot read drops the socket as any undecodable message", () => {
    const { sockets, conn } = watched();
    const errors: string[] = [];
    conn.on("error", (e) => errors.push(e.name ?? ""));
    sockets[0]!.serverSend(Uint8Array.of(0x89, 5, 0x82));
    expect(errors).toEqual(["bad_frame"]);
    expect(sockets[0]!.closedWith).not.toBeNull();
  });

  it("a reconnect watches the target last followed, with the same delay", () => {
    const { conn, sockets } = watched(2);
    expect(readSpectate(new URL(sockets[0]!.url).searchParams)).toEqual({ target: { player: 3 }, delaySec: 2 });
    expect(conn.follow({ x: 5, y: 6 })).toBe(true);
    expect(decodeSent(sockets[0]!.sent.at(-1)!)).toMatchObject({ kind: "message", type: "tk:follow", payload: '{"x":5,"y":6}' });
    sockets[0]!.serverClose(1006);
    vi.advanceTimersByTime(5_000);
    expect(sockets.length).toBeGreaterThan(1);
    expect(readSpectate(new URL(sockets.at(-1)!.url).searchParams)).toEqual({ target: { x: 5, y: 6 }, delaySec: 2 });
  });
});
