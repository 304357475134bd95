import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { connect, type RoomConnection } from "../src/connect";
import type { StateDecoder } from "../src/decoder";
import { createInterpolatedView } from "../src/interpolatedView";
import { SampleKind } from "../src/sampling";
import { fakeSockets, frameBytes, welcomeBytes } from "./helpers";

const now = () => Date.now(); // faked together with the timers

/** A decoder whose state is the frame body read as (id, x) byte pairs. */
function pairsDecoder(): StateDecoder<[number, number][]> {
  let pairs: [number, number][] = [];
  return {
    reset: () => void (pairs = []),
    apply(body) {
      const b = body as Uint8Array;
      pairs = [];
      for (let i = 0; i + 1 < b.length; i += 2) pairs.push([b[i]!, b[i + 1]!]);
    },
    get state() {
      return pairs;
    },
  };
}

let conn: RoomConnection<[number, number][]> | null = null;
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  conn?.close();
  conn = null;
  vi.useRealTimers();
});

function setup() {
  const { Impl, sockets } = fakeSockets();
  conn = connect("ws://h", { room: "r", kind: "k", WebSocketImpl: Impl, now, decoder: pairsDecoder() });
  const c = conn;
  const own = 9;
  const v = new Float64Array(1);
  const view = createInterpolatedView(c, {
    fields: ["x"],
    now,
    collect(pairs, put) {
      for (const [id, x] of pairs) {
        if (id === own) continue;
        v[0] = x;
        put(id, v);
      }
    },
  });
  return { s: sockets[0]!, sockets, view, own };
}

/** Sends frame k (room time k·50 ms) carrying entity 1 at x = k and the own entity 9. */
function sendFrame(s: { serverSend(d: Uint8Array): void }, k: number): void {
  s.serverSend(frameBytes({ tick: k, time: k * 50, delta: new Uint8Array([1, k, 9, 100]) }));
}

describe("InterpolatedView", () => {
  it("feeds every state frame into the buffer and reads it back at one render time, without the excluded entity", () => {
    const { s, view } = setup();
    s.serverOpen();
    s.serverSend(welcomeBytes({ syncIntervalMs: 50 }));
    expect(view.update(Date.now())).toBe(-Infinity);
    const seen: number[] = [];
    view.forEach((id) => seen.push(id));
    expect(seen).toEqual([]); // nothing before the first snapshot

    for (let k = 1; k <= 20; k++) {
      sendFrame(s, k);
      vi.advanceTimersByTime(50);
    }
    const rt = view.update(Date.now());
    expect(view.renderTime).toBe(rt);
    // Render time trails the newest snapshot (room time 1000) by the interpolation delay.
    expect(rt).toBeLessThan(1000);
    expect(rt).toBeGreaterThan(1000 - 200 - 50);
    const got: [number, number, number][] = [];
    view.forEach((id, values, kind) => got.push([id, values[0]!, kind]));
    expect(got).toHaveLength(1);
    const [id, x, kind] = got[0]!;
    expect(id).toBe(1);
    expect(kind).toBe(SampleKind.Interpolated);
    // Entity 1 is at x = k at room time 50·k: linear in between.
    expect(x).toBeCloseTo(rt / 50, 9);
    expect(view.sample(1)![0]).toBeCloseTo(rt / 50, 9);
    expect(view.sample(9)).toBeNull();
    expect(view.size).toBe(1);
  });

  it("is attached to the connection: send interval from the welcome, delay in stats, cleared on a new room epoch", () => {
    const { s, sockets, view } = setup();
    s.serverOpen();
    s.serverSend(welcomeBytes({ syncIntervalMs: 33, roomEpoch: 1000, token: "t" }));
    expect(view.buffer.sendIntervalMs).toBe(33);
    for (let k = 1; k <= 5; k++) {
      sendFrame(s, k);
      vi.advanceTimersByTime(50);
    }
    view.update(Date.now());
    expect(conn!.stats.interpolationDelayMs).toBe(view.buffer.delayMs);
    expect(conn!.stats.interpolationDelayMs).toBeGreaterThan(0);
    expect(view.size).toBe(1);

    // The room restarted: a welcome with another epoch. Old tracks belong to another timeline.
    s.serverClose(1006);
    vi.advanceTimersByTime(5_000);
    expect(sockets.length).toBe(2);
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(welcomeBytes({ syncIntervalMs: 33, roomEpoch: 2000, token: "t" }));
    expect(view.size).toBe(0);
    expect(view.buffer.latestTime).toBe(-Infinity);
    // The old timeline's render time is gone with it: nothing is read until the next update.
    expect(view.renderTime).toBe(-Infinity);
    expect(view.sample(1)).toBeNull();
  });

  it("every view on a connection is attached: a second one does not leave the first behind on a room restart", () => {
    const { s, sockets, view } = setup();
    const second = createInterpolatedView(conn!, { fields: ["x"], now, collect: (pairs, put) => pairs.forEach(([id, x]) => put(id, [x])) });
    s.serverOpen();
    s.serverSend(welcomeBytes({ syncIntervalMs: 33, roomEpoch: 1000, token: "t" }));
    for (const v of [view, second]) expect(v.buffer.sendIntervalMs).toBe(33);
    for (let k = 1; k <= 5; k++) sendFrame(s, k);
    s.serverClose(1006);
    vi.advanceTimersByTime(5_000);
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(welcomeBytes({ syncIntervalMs: 40, roomEpoch: 2000, token: "t" }));
    // The new room instance's clock starts again near 0: both views follow it.
    sendFrame(sockets[1]!, 1);
    for (const v of [view, second]) {
      expect(v.buffer.sendIntervalMs).toBe(40);
      expect(v.buffer.latestTime).toBe(50);
    }
    // A disposed view is let go: the connection no longer clears or reports it.
    second.dispose();
    conn!.switchTo("r2");
    expect(view.size).toBe(0);
    expect(second.size).toBe(2);
  });

  it("stops feeding the buffer once disposed", () => {
    const { s, view } = setup();
    s.serverOpen();
    s.serverSend(welcomeBytes());
    sendFrame(s, 1);
    expect(view.buffer.latestTime).toBe(50);
    view.dispose();
    sendFrame(s, 2);
    expect(view.buffer.latestTime).toBe(50);
  });
});
