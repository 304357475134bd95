import { describe, expect, it } from "vitest";
import {
  BinaryWriter,
  CloseCode,
  ErrorCode,
  Kind,
  PROTOCOL_VERSION,
  encodeHello,
  encodeInputs,
  encodeLeave,
  encodeReceipt,
  encodeStatsRequest,
} from "@tikron/protocol";
import { FakeClock, Room, admissionAddress, type Game, type GameContext, type RoomOptions } from "../src";
import { CounterGame, FakeConnection } from "./fakes";

const w = new BinaryWriter();
const hello = (token = "", name = "p") => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token, name }).toBytes();
const inputs = (entries: { seq: number; n: number }[]) =>
  encodeInputs(w.reset(), entries.map((e) => ({ seq: e.seq, payload: new Uint8Array([e.n]) }))).toBytes();

function setup(opts: Partial<RoomOptions> = {}, game: Game = new CounterGame()) {
  const clock = new FakeClock();
  const room = new Room({ kind: "t", roomId: "r1", game, clock, options: { tickMs: 50, syncIntervalMs: 50, ...opts } });
  const open = (identity?: string, address?: string) => {
    const conn = new FakeConnection();
    return { conn, id: room.open(conn, identity, address) };
  };
  const join = (identity?: string) => {
    const s = open(identity);
    room.message(s.id, hello());
    return s;
  };
  /** Confirms everything `conn` has been sent so far, as a reading client would. */
  const receipt = (s: { conn: FakeConnection; id: number }) => {
    const bytes = s.conn.sent.reduce((n, d) => n + (typeof d === "string" ? d.length : d.byteLength), 0);
    room.message(s.id, encodeReceipt(w.reset(), s.conn.sent.length, bytes).toBytes());
  };
  return { clock, room, open, join, receipt };
}

const errorsOf = (conn: FakeConnection) => conn.messages().filter((m) => m.kind === "error") as { code: number; reason: string }[];
const sentBytes = (conn: FakeConnection) => conn.sent.reduce((n, d) => n + (typeof d === "string" ? d.length : d.byteLength), 0);

describe("one size check for every frame", () => {
  it("closes 4007 on a 16 MiB frame of either dialect, on either kind of seat, without decoding it", () => {
    const { room, join, open } = setup();
    const big = new Uint8Array(16 << 20);
    big[0] = Kind.Input; // would be a malformed INPUT frame if it were read
    const seated = join();
    room.message(seated.id, big);
    expect(seated.conn.closedWith?.code).toBe(CloseCode.frame_too_large);
    const textOnBinary = join();
    room.message(textOnBinary.id, "x".repeat(16 << 20));
    expect(textOnBinary.conn.closedWith?.code).toBe(CloseCode.frame_too_large);
    const pre = open();
    room.message(pre.id, "{".repeat(5000));
    expect(pre.conn.closedWith?.code).toBe(CloseCode.frame_too_large);
    const errors = room.snapshot().errors;
    expect(errors.frame_too_large).toBe(3);
    expect(errors.bad_frame).toBeUndefined();
    expect(room.seatCount).toBe(0); // abuse kicks free the seat
  });

  it("takes a close 1009 (the runtime refused a frame over its own limit) as an oversized frame: counted, seat freed, identity cooling down", () => {
    const { room, open } = setup();
    const s = open("mallory");
    room.message(s.id, hello());
    expect(room.seatCount).toBe(1);
    room.closed(s.id, 1009, "Message is too large");
    expect(room.snapshot().errors.frame_too_large).toBe(1);
    expect(room.seatCount).toBe(0);
    expect(room.admitSocket("mallory", undefined)).toMatchObject({ counter: "cooldown" });
    // An ordinary drop holds the seat and counts nothing.
    const other = open("alice");
    room.message(other.id, hello());
    room.closed(other.id, 1006);
    expect(room.seatCount).toBe(1);
    expect(room.snapshot().errors.frame_too_large).toBe(1);
  });
});

describe("sockets before hello", () => {
  it("closes a pre-hello socket on its first protocol error, and after the 3 s hello timeout", () => {
    const { clock, room, open } = setup();
    const fuzz = open();
    room.message(fuzz.id, new Uint8Array([0x7f, 1, 2]));
    expect(fuzz.conn.closedWith?.code).toBe(CloseCode.too_many_errors);
    const silent = open();
    clock.advance(2999);
    expect(silent.conn.closedWith).toBeNull();
    clock.advance(2);
    expect(silent.conn.closedWith?.code).toBe(CloseCode.hello_timeout);
  });

  it("answers stats only after hello", () => {
    const { room, open, join } = setup();
    const pre = open();
    room.message(pre.id, encodeStatsRequest(w.reset(), 1).toBytes());
    expect(pre.conn.messages().some((m) => m.kind === "stats")).toBe(false);
    expect(errorsOf(pre.conn)[0]?.code).toBe(ErrorCode.not_joined);
    expect(pre.conn.closedWith?.code).toBe(CloseCode.too_many_errors);
    const seated = join();
    room.message(seated.id, encodeStatsRequest(w.reset(), 2).toBytes());
    expect(seated.conn.messages().some((m) => m.kind === "stats")).toBe(true);
  });
});

describe("admission per identity", () => {
  it("one identity's silent sockets fill its own allowance, not the room's", () => {
    const { room, open } = setup({ maxPendingPerIdentity: 4, maxPendingSockets: 256 });
    for (let i = 0; i < 4; i++) {
      expect(room.admitSocket("mallory")).toBeNull();
      open("mallory");
    }
    expect(room.admitSocket("mallory")).toMatchObject({ status: 429, counter: "identity_backlog" });
    expect(room.admitSocket("alice")).toBeNull();
    expect(room.admitSocket(undefined, "203.0.113.9")).toBeNull();
    expect(room.snapshot().refused).toEqual({ identity_backlog: 1 });
  });

  it("a hello/leave loop is throttled per identity while others still join", () => {
    const { room, join } = setup({ identityJoinRatePerSec: 2, identityJoinBurst: 4, joinRatePerSec: 20, joinBurst: 40 });
    const refusedLoop: number[] = [];
    for (let i = 0; i < 60; i++) {
      const s = join("mallory");
      if (s.conn.closedWith?.code === CloseCode.join_throttled) refusedLoop.push(i);
      else room.message(s.id, encodeLeave(w.reset()).toBytes());
    }
    expect(refusedLoop.length).toBe(56);
    // Once its bucket is empty the caller is refused before the upgrade (cheaper than a hello).
    expect(room.admitSocket("mallory")).toMatchObject({ status: 429, counter: "identity_join_throttled" });
    expect(room.admitSocket("alice")).toBeNull();
    for (let i = 0; i < 15; i++) {
      const honest = join(`p${i}`);
      expect(honest.conn.closedWith).toBeNull();
    }
  });

  it("an abuse kick cools the identity down: new sockets and joins are refused, then allowed again", () => {
    const { clock, room, join } = setup({ abuseCooldownMs: 5000, maxErrorsPerConnection: 1 });
    const m = join("mallory");
    room.message(m.id, new Uint8Array([0x7f]));
    room.message(m.id, new Uint8Array([0x7f]));
    expect(m.conn.closedWith?.code).toBe(CloseCode.too_many_errors);
    expect(room.admitSocket("mallory")).toMatchObject({ status: 429, counter: "cooldown" });
    expect(room.admitSocket("alice")).toBeNull();
    clock.advance(5001);
    expect(room.admitSocket("mallory")).toBeNull();
  });

  it("limits by address only off loopback", () => {
    expect(admissionAddress("127.0.0.1")).toBeUndefined();
    expect(admissionAddress("::1")).toBeUndefined();
    expect(admissionAddress("::ffff:127.0.0.1")).toBeUndefined();
    expect(admissionAddress(null)).toBeUndefined();
    expect(admissionAddress("203.0.113.9")).toBe("203.0.113.9");
  });
});

describe("refused inputs", () => {
  it("one error frame per frame carrying the count, and a client that keeps sending them is kicked", () => {
    const { room, join } = setup({ rejectedFramesPerSec: 5, rejectedFramesBurst: 10 });
    const s = join();
    const bad = Array.from({ length: 16 }, (_, i) => ({ seq: i + 1, n: 0 }));
    room.message(s.id, inputs(bad));
    const errors = errorsOf(s.conn);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.reason).toMatch(/^16 inputs refused/);
    expect(room.snapshot().inputs.rejectedByCode.bad_input).toBe(16);
    let seq = 17;
    for (let i = 0; i < 20 && !s.conn.closedWith; i++) room.message(s.id, inputs([{ seq: seq++, n: 0 }]));
    expect(s.conn.closedWith?.code).toBe(CloseCode.too_many_errors);
    expect(errorsOf(s.conn).length).toBeLessThanOrEqual(11);
    expect(room.snapshot().errors.too_many_refusals).toBe(1);
  });

  it("refuses a seq that leaps more than maxSeqStep, and the seat goes on from where it was", () => {
    const { clock, room, join } = setup();
    const s = join();
    room.message(s.id, inputs([{ seq: 0xffffffff, n: 1 }]));
    room.message(s.id, inputs([{ seq: 1, n: 2 }, { seq: 1 + (1 << 16), n: 3 }]));
    clock.advance(50);
    expect(room.snapshot().inputs.rejectedByCode.seq_jump).toBe(1);
    expect(room.snapshot().inputs.processed).toBe(2);
  });

  it("budget drops start over after a quiet second, so bursts spread over a session never kick", () => {
    const { clock, room, join, receipt } = setup({ msgRatePerSec: 10, msgBurst: 10 });
    const s = join();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 18; i++) room.message(s.id, encodeReceipt(w.reset(), 0, 0).toBytes());
      clock.advance(1100);
      receipt(s);
    }
    expect(s.conn.closedWith).toBeNull();
    expect(room.snapshot().errors.rate_limited).toBeGreaterThanOrEqual(5 * 7);
  });
});

/** A turn-based JSON game with a large view, to make a non-reader's backlog grow fast. */
class NoteGame implements Game<string> {
  readonly kind = "notes";
  readonly ticking = false;
  note = "";
  ctx!: GameContext;
  readonly sync = { mode: "json" as const, source: { viewFor: () => ({ note: this.note }) } };
  init(ctx: GameContext): void {
    this.ctx = ctx;
  }
  join(): void {}
  leave(): void {}
  decodeInput(p: unknown): string {
    return String(p);
  }
  applyInput(_id: number, input: string): void {
    this.note = input.repeat(200);
    this.ctx.markChanged();
  }
  tick(): void {}
}

describe("backpressure from receipts", () => {
  it("binary room: a non-reader is sent less, then closed 4004 before 1 MiB is queued; a reader is untouched", async () => {
    const { clock, room, join, receipt } = setup({ softBufferedBytes: 64 * 1024, maxBufferedBytes: 1 << 20, maxUnreceiptedMessages: 100_000 });
    const game = (room as unknown as { game: CounterGame }).game;
    const reader = join();
    const stalled = join();
    let stalledFramesAtSoft = -1;
    for (let t = 0; t < 400 && !stalled.conn.closedWith; t++) {
      // Stats replies are the biggest thing a client can make the room send.
      room.message(stalled.id, encodeStatsRequest(w.reset(), t).toBytes());
      game.encoder.version++;
      clock.advance(50);
      receipt(reader);
      if (stalledFramesAtSoft < 0 && room.snapshot().framesSkipped > 0) stalledFramesAtSoft = stalled.conn.frames().length;
    }
    expect(stalledFramesAtSoft).toBeGreaterThan(0); // first sent less...
    expect(stalled.conn.closedWith?.code).toBe(CloseCode.slow_consumer); // ...then closed
    expect(sentBytes(stalled.conn)).toBeLessThan(1 << 20);
    expect(reader.conn.closedWith).toBeNull();
    const before = reader.conn.frames().length;
    game.encoder.version++;
    clock.advance(50);
    expect(reader.conn.frames().length).toBe(before + 1);
    expect(room.snapshot().errors.slow_consumer).toBe(1);
  });

  it("a client that catches up gets one frame carrying everything it missed", () => {
    const { clock, room, join, receipt } = setup({ maxUnreceiptedMessages: 5, slowConsumerGraceMs: 10_000 });
    const game = (room as unknown as { game: CounterGame }).game;
    const s = join();
    for (let i = 0; i < 20; i++) {
      game.encoder.version++;
      clock.advance(50);
    }
    const got = s.conn.frames().length;
    expect(got).toBeLessThan(8);
    expect(room.snapshot().framesSkipped).toBeGreaterThan(10);
    receipt(s);
    game.encoder.version++;
    clock.advance(50);
    const frames = s.conn.frames();
    expect(frames.length).toBe(got + 1);
    expect(s.conn.closedWith).toBeNull();
  });

  it("JSON room: a non-reader is closed 4004 before 1 MiB; the reader keeps getting state", async () => {
    const game = new NoteGame();
    const { room, open, clock } = setup({ softBufferedBytes: 64 * 1024 }, game);
    const jsonJoin = () => {
      const s = open();
      room.message(s.id, JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name: "n" }));
      return s;
    };
    const reader = jsonJoin();
    const stalled = jsonJoin();
    for (let i = 0; i < 300 && !stalled.conn.closedWith; i++) {
      room.message(reader.id, JSON.stringify({ t: "input", seq: i + 1, data: `move${i}-` }));
      await Promise.resolve();
      const units = reader.conn.sent.reduce((n, d) => n + (d as string).length, 0);
      room.message(reader.id, JSON.stringify({ t: "rc", m: reader.conn.sent.length, b: units }));
      clock.advance(100);
    }
    expect(stalled.conn.closedWith?.code).toBe(CloseCode.slow_consumer);
    expect(sentBytes(stalled.conn)).toBeLessThan(1 << 20);
    expect(reader.conn.closedWith).toBeNull();
    const last = reader.conn.json().filter((m) => m.t === "state").at(-1);
    expect(last.state.note.startsWith("move")).toBe(true);
  });
});
