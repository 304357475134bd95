import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FrameWriter, encodeCadence } from "@tikron/protocol";
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

  it("follows the connection: send interval from the welcome, carried over a new room epoch", () => {
    const { s, sockets, view } = setup();
    s.serverOpen();
    s.serverSend(welcomeBytes({ syncIntervalMs: 33, roomEpoch: 1000, token: "t" }));
    expect(view.buffer.sendIntervalMs).toBe(33);
    for (let k = 1; k <= 5; k++) {
      sendFrame(s, k);
      vi.advanceTimersByTime(50);
    }
    const rt = view.update(Date.now());
    expect(view.buffer.delayMs).toBeGreaterThan(0);
    expect(view.size).toBe(1);
    const x = view.sample(1)![0];

    // The room restarted: a welcome with an epoch 5 s later. What the view holds is kept,
    // re-expressed in the new room's clock.
    s.serverClose(1006);
    vi.advanceTimersByTime(5_000);
    expect(sockets.length).toBe(2);
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(welcomeBytes({ syncIntervalMs: 33, roomEpoch: 6000, token: "t" }));
    expect(view.size).toBe(1);
    expect(view.buffer.latestTime).toBe(250 - 5000);
    expect(view.renderTime).toBe(rt - 5000);
    expect(view.sample(1)![0]).toBe(x);
  });

  it("draws on across a room restart: no gap, no blend across it, render time never backwards in wall-clock terms", () => {
    // Old world: entity 1 at x = k, entity 2 only there. The restored world: entity 1 back at
    // x = 30 (the checkpoint's place, behind where it was last seen), entity 3 new.
    const { s, sockets, view } = setup();
    let epoch = 1_000_000;
    s.serverOpen();
    s.serverSend(welcomeBytes({ syncIntervalMs: 50, roomEpoch: epoch, token: "t" }));
    const frame = (sock: typeof s, time: number, pairs: number[]) => sock.serverSend(frameBytes({ tick: time / 50, time, delta: new Uint8Array([...pairs, 9, 100]) }));
    let wallRender = -Infinity;
    let firstNewArrival = Infinity;
    let shownNewAt = Infinity;
    const seen = new Set<number>();
    const frameTime = (ms: number, each: () => void) => {
      for (let t = 0; t < ms; t += 10) {
        if (t % 50 === 0) each();
        vi.advanceTimersByTime(10);
        const rt = view.update(Date.now());
        if (rt === -Infinity) continue;
        // In wall-clock terms (the render time plus the epoch of the clock it is in).
        expect(rt + epoch).toBeGreaterThanOrEqual(wallRender);
        wallRender = rt + epoch;
        const x = view.sample(1)?.[0];
        // From the first time it is drawn, it is drawn at every frame.
        if (seen.size > 0) expect(x, "entity 1 not drawn").toBeDefined();
        if (x === undefined) continue;
        seen.add(x);
        if (x === 30 && shownNewAt === Infinity) shownNewAt = Date.now();
      }
    };
    let k = 0;
    frameTime(2000, () => {
      k++;
      frame(s, k * 50, [1, k, 2, 200]);
    });
    const lastOld = k;
    s.serverClose(1006);
    // Down 1.5 s; the new instance's epoch is a moment before its first frame.
    const downtime = 1500;
    frameTime(downtime, () => {});
    expect(sockets.length).toBe(2);
    const restarted = sockets[1]!;
    restarted.serverOpen();
    const newEpoch = epoch + k * 50 + downtime;
    restarted.serverSend(welcomeBytes({ syncIntervalMs: 50, roomEpoch: newEpoch, token: "t", reconnected: true }));
    epoch = newEpoch;
    let j = 0;
    frameTime(1000, () => {
      j++;
      if (j === 1) firstNewArrival = Date.now();
      frame(restarted, j * 50, [1, 30, 3, 77]);
    });
    // What was drawn of entity 1: its old motion (and at most the usual 50 ms of extrapolation
    // past its last snapshot, one unit here), then the restored place; never a value between.
    expect([...seen].filter((x) => !((x >= 1 && x <= lastOld + 1) || x === 30))).toEqual([]);
    expect(seen.has(lastOld)).toBe(true);
    expect(shownNewAt - firstNewArrival).toBeLessThanOrEqual(view.buffer.delayMs + 60);
    expect(view.sample(2)).toBeNull();
    expect(view.sample(3)![0]).toBe(77);
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

  it("starts over in another room: at once when switchTo drops a socket, else at that room's welcome", () => {
    const { s, sockets, view } = setup();
    s.serverOpen();
    s.serverSend(welcomeBytes({ roomEpoch: 1000, token: "t" }));
    for (let k = 1; k <= 3; k++) sendFrame(s, k);
    expect(view.size).toBe(1);
    conn!.switchTo("r2");
    expect(view.size).toBe(0);
    expect(view.buffer.latestTime).toBe(-Infinity);
    // Its welcome (on an epoch later than the old room's) starts a new timeline: nothing carried over.
    sockets[1]!.serverOpen();
    sockets[1]!.serverSend(welcomeBytes({ roomEpoch: 3000, token: "t2" }));
    sendFrame(sockets[1]!, 1);
    expect(view.buffer.latestTime).toBe(50);
    // Switched while waiting to retry after a drop (no socket to drop): the next room's welcome clears.
    sockets[1]!.serverClose(1006);
    expect(view.size).toBe(1);
    conn!.switchTo("r3");
    const last = sockets.at(-1)!;
    last.serverOpen();
    last.serverSend(welcomeBytes({ roomEpoch: 9000, token: "t3" }));
    expect(view.size).toBe(0);
    expect(view.buffer.latestTime).toBe(-Infinity);
  });

  it("follows the room's cadence, and a connection joined before the view was made", () => {
    const { s } = setup();
    s.serverOpen();
    s.serverSend(welcomeBytes({ syncIntervalMs: 40, roomEpoch: 1000 }));
    const late = createInterpolatedView(conn!, { fields: ["x"], now, collect: (pairs, put) => pairs.forEach(([id, x]) => put(id, [x])) });
    expect(late.buffer.sendIntervalMs).toBe(40);
    s.serverSend(encodeCadence(new FrameWriter(), 20, 100).toBytes());
    expect(late.buffer.sendIntervalMs).toBe(100);
    sendFrame(s, 1);
    // Its first welcome seen was the one before it: a later frame of the same room is no restart.
    expect(late.buffer.latestTime).toBe(50);
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
