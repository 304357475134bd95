import { describe, expect, it } from "vitest";
import {
  BinaryWriter,
  CloseCode,
  ErrorCode,
  PROTOCOL_VERSION,
  encodeHello,
  encodeInputs,
  encodeLeave,
  encodePing,
  encodeStatsRequest,
} from "@tikron/protocol";
import { FakeClock, Room, createRoom, defaultRoomOptions, reject, type Game, type GameDefinition, type InputRejection, type RoomOptions, type RoomStatsSnapshot } from "../src";
import { CounterGame, FakeConnection, deltaVersion } from "./fakes";

const w = new BinaryWriter();
const hello = (token = "", name = "p") => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token, name }).toBytes();
const input = (seq: number, n: number) => encodeInputs(w.reset(), [{ seq, payload: new Uint8Array([n]) }]).toBytes();

function setup(opts: Partial<RoomOptions> = {}) {
  const clock = new FakeClock();
  const game = new CounterGame();
  const room = new Room({ kind: "counter", roomId: "r1", game, clock, options: { tickMs: 50, syncIntervalMs: 50, ...opts } });
  const join = (token = "") => {
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, hello(token));
    const welcome = conn.messages().find((m) => m.kind === "welcome");
    return { conn, id, welcome: welcome as Extract<typeof welcome, { kind: "welcome" }> };
  };
  return { clock, game, room, join };
}

describe("Room: tick loop", () => {
  it("ticks on an absolute grid and does not drift when timers fire late", () => {
    const { clock, game, join } = setup({ tickMs: 50 });
    const start = 0; // room time: the room was made at this clock's now
    join();
    clock.advance(1000);
    expect(game.ticks.length).toBe(20);
    game.ticks.forEach((t, i) => expect(t).toBe(start + (i + 1) * 50));
  });

  it("stops the loop when the last player leaves and restarts on the next join", () => {
    const { clock, room, join } = setup();
    const a = join();
    expect(room.loopRunning).toBe(true);
    room.message(a.id, encodeLeave(w.reset()).toBytes());
    expect(room.loopRunning).toBe(false);
    expect(a.conn.closedWith?.code).toBe(CloseCode.normal);
    clock.advance(500);
    expect(clock.pending).toBe(0);
    join();
    expect(room.loopRunning).toBe(true);
  });

  it("stops the loop when the last socket drops (seat held, expiry timer only)", () => {
    const { clock, room, join } = setup({ reconnectWindowMs: 1000 });
    const a = join();
    room.closed(a.id, 1006);
    expect(room.loopRunning).toBe(false);
    expect(room.seatCount).toBe(1);
    clock.advance(1001);
    expect(room.seatCount).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

describe("Room: input queue and acks", () => {
  it("queues inputs until the next tick, applies them in arrival order, acks in the flush", () => {
    const { clock, game, room, join } = setup();
    const a = join();
    const b = join();
    clock.advance(10);
    room.message(a.id, input(1, 5));
    room.message(b.id, input(1, 7));
    room.message(a.id, input(2, 3));
    expect(game.applied).toEqual([]);
    const arrivedAt = 10; // room time (ms since the room's epoch)
    clock.advance(40); // next tick at +50
    expect(game.applied.map((x) => [x.playerId, x.n])).toEqual([
      [a.welcome.playerId, 5],
      [b.welcome.playerId, 7],
      [a.welcome.playerId, 3],
    ]);
    expect(game.applied.every((x) => x.receivedAt === arrivedAt)).toBe(true);
    const acksA = a.conn.frames().filter((f) => f.ackSeq >= 0).map((f) => f.ackSeq);
    expect(acksA).toEqual([2]);
    expect(room.snapshot().inputs).toMatchObject({ received: 3, processed: 3, rejected: 0 });
  });

  it("with queueInputs off, processes and acks each input at once", () => {
    const { game, room, join } = setup({ queueInputs: false });
    const a = join();
    room.message(a.id, input(1, 5));
    expect(game.applied.length).toBe(1);
    expect(a.conn.frames().map((f) => f.ackSeq)).toContain(1);
    room.message(a.id, input(2, 6));
    expect(a.conn.frames().map((f) => f.ackSeq)).toContain(2);
  });

  it("refuses non-increasing seqs, bad payloads and illegal moves with errors, and still acks the rejected seq", () => {
    const { clock, room, join } = setup();
    const a = join();
    room.message(a.id, input(1, 5));
    room.message(a.id, input(1, 5)); // stale
    room.message(a.id, input(2, 0)); // bad payload
    room.message(a.id, input(3, 99)); // illegal at apply time
    clock.advance(50);
    const errors = a.conn.messages().filter((m) => m.kind === "error").map((m) => (m as { code: number }).code);
    expect(errors).toEqual([ErrorCode.bad_input, ErrorCode.bad_input, ErrorCode.illegal_move]);
    const s = room.snapshot();
    expect(s.inputs.rejected).toBe(3);
    expect(s.inputs.rejectedByCode).toEqual({ stale_seq: 1, bad_input: 1, illegal_move: 1 });
    expect(a.conn.frames().at(-1)!.ackSeq).toBe(3);
  });
});

describe("Room: flush throttle", () => {
  it("sends at most one frame per client per sync interval however fast inputs arrive", () => {
    const { clock, room, join } = setup({ tickMs: 10, syncIntervalMs: 50, msgRatePerSec: 1000, msgBurst: 1000 });
    const a = join();
    let seq = 0;
    for (let t = 0; t < 1000; t += 2) {
      room.message(a.id, input(++seq, 1));
      clock.advance(2);
    }
    const frames = a.conn.frames();
    // 1000 ms at one flush per 50 ms: at most 20 frames.
    expect(frames.length).toBeLessThanOrEqual(20);
    expect(frames.length).toBeGreaterThanOrEqual(19);
    const times = frames.map((f) => f.time);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(50);
  });

  it("sends no frame to a client with nothing new when idle frames are off", () => {
    const { clock, game, join } = setup({ idleFrameMs: 0 });
    const a = join();
    clock.advance(100);
    const before = a.conn.frames().length;
    expect(before).toBeGreaterThan(0); // the initial state
    clock.advance(1000);
    expect(a.conn.frames().length).toBe(before);
    game.encoder.version++;
    clock.advance(50);
    const frames = a.conn.frames();
    expect(frames.length).toBe(before + 1);
    expect(deltaVersion(frames.at(-1)!.body!)).toBe(game.encoder.version);
  });

  it("tells an idle client that time advanced with empty frames, idleFrameMs apart", () => {
    const { clock, game, join, room } = setup({ idleFrameMs: 250 });
    const a = join();
    clock.advance(100);
    const before = a.conn.frames().length;
    clock.advance(1000);
    const idle = a.conn.frames().slice(before);
    // 1000 ms of nothing new at one empty frame per 250 ms (flushes on 50 ms boundaries).
    expect(idle.length).toBe(4);
    for (const f of idle) {
      expect(f.ackSeq).toBe(-1);
      expect(f.events.length).toBe(0);
      expect(f.hasState).toBe(false);
      expect(f.body).toBeNull();
    }
    const bytes = a.conn.sent.slice(-4).map((d) => (d as Uint8Array).byteLength);
    expect(Math.max(...bytes)).toBeLessThanOrEqual(12);
    for (let i = 1; i < idle.length; i++) expect(idle[i]!.time - idle[i - 1]!.time).toBe(250);
    // Plus the one that said "settled" at the first flush after the initial state.
    expect(room.snapshot().idleFrames).toBe(5);
    // A real change goes out at the next flush, and restarts the idle spacing.
    game.encoder.version++;
    clock.advance(50);
    expect(a.conn.frames().at(-1)!.body).not.toBeNull();
  });

  it("aligns flushes to tick boundaries", () => {
    const { clock, game, join } = setup({ tickMs: 20, syncIntervalMs: 60 });
    const a = join();
    for (let i = 0; i < 30; i++) {
      game.encoder.version++; // state changes every tick; frames still go out every 3rd tick
      clock.advance(20);
    }
    const frames = a.conn.frames();
    expect(frames.length).toBe(10);
    for (const f of frames) {
      expect(f.time % 60).toBe(0);
      expect(f.tick % 3).toBe(0);
    }
  });
});

describe("Room: seats", () => {
  it("refuses the (cap+1)-th join with room_full and close 4002; seated players are untouched", () => {
    const { clock, room, join } = setup({ cap: 3 });
    const seated = [join(), join(), join()];
    const extra = join();
    expect(extra.welcome).toBeUndefined();
    expect(extra.conn.closedWith?.code).toBe(CloseCode.room_full);
    const err = extra.conn.messages().find((m) => m.kind === "error") as { code: number };
    expect(err.code).toBe(ErrorCode.room_full);
    expect(room.seatCount).toBe(3);
    expect(room.snapshot().refused).toEqual({ room_full: 1 });
    expect(seated.every((s) => s.conn.closedWith === null)).toBe(true);
    room.message(seated[0]!.id, input(1, 1));
    clock.advance(50);
    expect(seated[0]!.conn.frames().at(-1)!.ackSeq).toBe(1);
  });

  it("restores seat and entity for the same token inside the window, with a fresh baseline", () => {
    const { clock, game, room, join } = setup({ reconnectWindowMs: 5000 });
    const a = join();
    room.message(a.id, input(1, 5));
    clock.advance(100);
    room.closed(a.id, 1006);
    expect(game.events).toContain(`disconnected:${a.welcome.playerId}`);
    clock.advance(4000);
    const again = join(a.welcome.token);
    expect(again.welcome.reconnected).toBe(true);
    expect(again.welcome.playerId).toBe(a.welcome.playerId);
    expect(again.welcome.lastSeq).toBe(1);
    expect(game.totals.get(a.welcome.playerId)).toBe(5);
    clock.advance(50);
    // fresh baseline: the current state is sent again even though nothing changed
    expect(deltaVersion(again.conn.frames()[0]!.body!)).toBe(game.encoder.version);
    expect(room.snapshot().reconnects).toBe(1);
  });

  it("frees the seat after the window; the old token then gets a new seat", () => {
    const { clock, game, room, join } = setup({ reconnectWindowMs: 1000 });
    const a = join();
    room.closed(a.id, 1006);
    clock.advance(1001);
    expect(game.events).toContain(`leave:${a.welcome.playerId}`);
    const again = join(a.welcome.token);
    expect(again.welcome.reconnected).toBe(false);
    expect(again.welcome.playerId).not.toBe(a.welcome.playerId);
  });

  it("a held seat counts against the cap", () => {
    const { room, join } = setup({ cap: 1, reconnectWindowMs: 1000 });
    const a = join();
    room.closed(a.id, 1006);
    expect(join().conn.closedWith?.code).toBe(CloseCode.room_full);
    expect(join(a.welcome.token).welcome.reconnected).toBe(true);
  });

  it("a second socket with the same token replaces the first (4005)", () => {
    const { room, join } = setup();
    const a = join();
    const b = join(a.welcome.token);
    expect(a.conn.closedWith?.code).toBe(CloseCode.replaced);
    expect(b.welcome.reconnected).toBe(true);
    expect(room.connectedCount).toBe(1);
  });

  it("throttles join storms with join_throttled + retry hint", () => {
    const { room, join } = setup({ cap: 100, joinRatePerSec: 10, joinBurst: 5 });
    const results = Array.from({ length: 8 }, () => join());
    expect(results.filter((r) => r.welcome).length).toBe(5);
    const refused = results.filter((r) => !r.welcome);
    for (const r of refused) {
      expect(r.conn.closedWith?.code).toBe(CloseCode.join_throttled);
      const err = r.conn.messages().find((m) => m.kind === "error") as { retryAfterMs: number };
      expect(err.retryAfterMs).toBeGreaterThan(0);
    }
    expect(room.snapshot().refused.join_throttled).toBe(3);
  });
});

describe("Room: probe and protocol errors", () => {
  it("answers ping with pong and statsRequest with the tk:stats snapshot", () => {
    const { clock, room, join } = setup();
    const a = join();
    clock.advance(200);
    room.message(a.id, encodePing(w.reset(), 123.5).toBytes());
    room.message(a.id, encodeStatsRequest(w.reset(), 7).toBytes());
    const msgs = a.conn.messages();
    const pong = msgs.find((m) => m.kind === "pong") as { clientTime: number; serverTime: number };
    expect(pong.clientTime).toBe(123.5);
    expect(pong.serverTime).toBe(clock.now());
    const stats = msgs.find((m) => m.kind === "stats") as { requestId: number; stats: RoomStatsSnapshot };
    expect(stats.requestId).toBe(7);
    const snap = stats.stats;
    expect(snap.ccu).toBe(1);
    expect(snap.ticks).toBe(4);
    expect(snap.tick.count).toBe(4);
    expect(snap.flush.histogram.counts.reduce((a: number, b: number) => a + b, 0)).toBe(snap.flushes);
  });

  it("answers garbage with a typed error, counts it, and closes after too many", () => {
    const { room, join } = setup({ maxErrorsPerConnection: 3 });
    const a = join();
    const b = join();
    room.message(a.id, new Uint8Array([0x7f, 1, 2]));
    room.message(a.id, new Uint8Array([0x02])); // truncated input
    expect(a.conn.closedWith).toBeNull();
    room.message(a.id, new Uint8Array([0x02, 0]));
    room.message(a.id, new Uint8Array([0x03, 1]));
    expect(a.conn.closedWith?.code).toBe(CloseCode.too_many_errors);
    expect(b.conn.closedWith).toBeNull();
    const s = room.snapshot();
    expect(s.errors.unknown_kind).toBe(1);
    expect(s.errors.bad_frame).toBe(3);
  });

  it("closes oversized frames with 4007", () => {
    const { room, join } = setup();
    const a = join();
    room.message(a.id, new Uint8Array(10_000));
    expect(a.conn.closedWith?.code).toBe(CloseCode.frame_too_large);
  });

  it("closes a socket that never says hello (4006)", () => {
    const { clock, room } = setup({ helloTimeoutMs: 1000 });
    const conn = new FakeConnection();
    room.open(conn);
    clock.advance(1001);
    expect(conn.closedWith?.code).toBe(CloseCode.hello_timeout);
  });

  it("rate-limits a flooding connection and closes it (4003) while others play", () => {
    const { clock, room, join } = setup({ msgRatePerSec: 10, msgBurst: 10 });
    const a = join();
    const b = join();
    for (let i = 1; i <= 40; i++) room.message(a.id, input(i, 1));
    expect(a.conn.closedWith?.code).toBe(CloseCode.rate_limited);
    room.message(b.id, input(1, 1));
    clock.advance(50);
    expect(b.conn.frames().at(-1)!.ackSeq).toBe(1);
    expect(room.snapshot().errors.rate_limited).toBeGreaterThan(0);
  });

  it("drops a slow consumer (4004) within four flushes, whatever its place in the flush order", () => {
    for (const slowIndex of [0, 1, 2, 3]) {
      const { clock, game, room, join } = setup({ maxBufferedBytes: 1000 });
      const clients = [join(), join(), join(), join()];
      const slow = clients[slowIndex]!;
      slow.conn.buffered = 5000;
      for (let f = 0; f < 4 && slow.conn.closedWith === null; f++) {
        game.encoder.version++;
        clock.advance(50);
      }
      expect(slow.conn.closedWith?.code).toBe(CloseCode.slow_consumer);
      for (const c of clients) if (c !== slow) expect(c.conn.closedWith).toBeNull();
      expect(room.snapshot().errors.slow_consumer).toBe(1);
    }
  });
});

describe("Room: cadence, admission and how hosts make rooms", () => {
  it("never flushes faster than syncIntervalMs: a sync interval between ticks rounds up, and the welcome says so", () => {
    const { clock, game, room, join } = setup({ tickMs: 50, syncIntervalMs: 60 });
    const a = join();
    expect(a.welcome.syncIntervalMs).toBe(100);
    expect(room.snapshot().syncIntervalMs).toBe(100);
    for (let i = 0; i < 20; i++) {
      game.encoder.version++;
      clock.advance(50);
    }
    const times = a.conn.frames().map((f) => f.time);
    expect(times.length).toBe(10);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(100);
  });

  it("admitSocket refuses once maxPendingSockets sockets wait for their hello, and counts it", () => {
    const { room } = setup({ maxPendingSockets: 2 });
    expect(room.admitSocket()).toBeNull();
    const first = room.open(new FakeConnection());
    room.open(new FakeConnection());
    expect(room.admitSocket()).toMatchObject({ status: 503, counter: "socket_backlog" });
    expect(room.snapshot().refused).toEqual({ socket_backlog: 1 });
    room.message(first, hello()); // a seated socket is not pending
    expect(room.admitSocket()).toBeNull();
  });

  it("createRoom resolves options once (defaults < kind defaults < overrides) and hands the same values to game and room", () => {
    let seen: RoomOptions | null = null;
    const def: GameDefinition = {
      kind: "counter",
      defaults: { tickMs: 25, cap: 7 },
      create: (options) => {
        seen = options;
        return new CounterGame();
      },
    };
    const room = createRoom(def, { kind: "counter", roomId: "r", overrides: { cap: 3 }, clock: new FakeClock() });
    expect(seen).toEqual({ ...defaultRoomOptions, tickMs: 25, cap: 3 });
    expect(room.options).toEqual(seen);
  });
});

describe("Room: restore after a runtime restart", () => {
  it("adopt() re-seats a socket with its id and token and gives the fresh game its player", () => {
    const clock = new FakeClock();
    const game = new CounterGame();
    const room = new Room({ kind: "counter", roomId: "r1", game, clock });
    const conn = new FakeConnection();
    room.adopt(conn, { playerId: 7, token: "tok", name: "p7", json: false });
    expect(game.events).toEqual(["join:7"]);
    expect(room.seatCount).toBe(1);
    expect(room.loopRunning).toBe(true);
    // The next new player gets an id above the adopted one.
    const other = new FakeConnection();
    room.message(room.open(other), hello());
    const welcome = other.messages().find((m) => m.kind === "welcome") as { playerId: number };
    expect(welcome.playerId).toBe(8);
  });
});

describe("Room: abuse does not cost seats", () => {
  it("frees (does not hold) the seat of a player kicked for abuse, so repeat offenders cannot fill the room", () => {
    const { room, join } = setup({ cap: 2, msgRatePerSec: 5, msgBurst: 5, reconnectWindowMs: 60_000 });
    for (let round = 0; round < 5; round++) {
      const a = join();
      expect(a.welcome).toBeDefined();
      for (let i = 1; i <= 20; i++) room.message(a.id, input(i, 1));
      expect(a.conn.closedWith?.code).toBe(CloseCode.rate_limited);
      expect(room.seatCount).toBe(0);
    }
    const dropped = join();
    room.closed(dropped.id, 1006);
    expect(room.seatCount).toBe(1); // an ordinary drop is still held for a reconnect
  });

  it("spaces tk:stats answers per connection and says when to retry", () => {
    const { clock, room, join } = setup({ minStatsIntervalMs: 500 });
    const a = join();
    const ask = (id: number) => room.message(a.id, encodeStatsRequest(w.reset(), id).toBytes());
    ask(1);
    ask(2);
    clock.advance(500);
    ask(3);
    const msgs = a.conn.messages();
    expect(msgs.filter((m) => m.kind === "stats").map((m) => (m as { requestId: number }).requestId)).toEqual([1, 3]);
    const err = msgs.find((m) => m.kind === "error") as { code: number; retryAfterMs: number };
    expect(err.code).toBe(ErrorCode.rate_limited);
    expect(err.retryAfterMs).toBeGreaterThan(0);
    expect(room.snapshot().errors.stats_throttled).toBe(1);
  });
});

describe("Room: oversize means the frame, not a field", () => {
  it("treats an over-long field in a small frame as bad_frame (no close) and a frame over the limit as 4007", () => {
    const { room, join } = setup();
    const a = join();
    room.message(a.id, Uint8Array.from([0x01, 0, 0, 0, 65])); // hello whose name claims 65 bytes
    expect(a.conn.closedWith).toBeNull();
    const err = a.conn.messages().find((m) => m.kind === "error") as { code: number };
    expect(err.code).toBe(ErrorCode.bad_frame);
    room.message(a.id, new Uint8Array(5000));
    expect(a.conn.closedWith?.code).toBe(CloseCode.frame_too_large);
  });
});

describe("Room: JSON dialect answers", () => {
  /** A JSON game with a tick loop: inputs are numbers added to a total, the view is the total. */
  class TickingJsonGame implements Game<number> {
    readonly kind = "ticking-json";
    readonly ticking = true;
    total = 0;
    readonly sync = { mode: "json" as const, source: { viewFor: () => ({ total: this.total }) } };
    join(): void {}
    leave(): void {}
    decodeInput(payload: unknown): number | InputRejection {
      return typeof payload === "number" ? payload : reject("bad_input", "a number expected");
    }
    applyInput(_playerId: number, n: number): void {
      this.total += n;
    }
    tick(): void {}
  }

  it("with queueInputs off, a ticking JSON room acks each input at once as a JSON state, never a binary frame", () => {
    const clock = new FakeClock();
    const room = new Room({ kind: "ticking-json", roomId: "r1", game: new TickingJsonGame(), clock, options: { queueInputs: false } });
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name: "j" }));
    room.message(id, JSON.stringify({ t: "input", seq: 1, data: 5 }));
    expect(conn.sent.every((d) => typeof d === "string")).toBe(true);
    expect(conn.json().filter((m) => m.t === "state" && m.ack === 1)).toHaveLength(1);
  });

  it("answers a JSON socket that has not said hello in JSON, whatever it got wrong", () => {
    const { room } = setup();
    for (const text of [JSON.stringify({ t: "input", seq: 1, data: 1 }), "x".repeat(5000)]) {
      const conn = new FakeConnection();
      room.message(room.open(conn), text);
      expect(conn.sent.length).toBeGreaterThan(0);
      expect(conn.json()[0]?.t).toBe("error");
    }
  });
});
