/**
 * Custom room messages in the core: routing to the game's handler (typed from a declaration),
 * replies and refusals in both dialects, the per-socket message rate, the shared refusal budget,
 * the `tk:stats` counters, and nothing before hello.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  BinaryWriter,
  CloseCode,
  ErrorCode,
  MAX_MESSAGE_PAYLOAD_CHARS,
  PROTOCOL_VERSION,
  defineGameTypes,
  defineMessages,
  encodeHello,
  encodeRoomMessage,
  refuseMessage,
  type ReplyMessage,
  jsonDialect,
} from "@tikron/protocol";
import { FakeClock, Room, messageHandlers, type Game, type GameContext, type RoomOptions } from "../src";
import { CounterGame, FakeConnection } from "./fakes";

interface VoteMessages {
  vote: { request: { choice: "a" | "b" }; response: { a: number; b: number } };
  shout: { request: { text: string }; response: void };
}
const voteTypes = defineGameTypes<number>()({ kind: "counter", json: jsonDialect, messages: defineMessages<VoteMessages>() });

function checkVote(p: unknown): { choice: "a" | "b" } | ReturnType<typeof refuseMessage> {
  const choice = (p as { choice?: unknown } | null)?.choice;
  return choice === "a" || choice === "b" ? { choice } : refuseMessage("bad_message", "choice must be a or b");
}

/** The counter game plus two room messages: a vote answered with the tally, a shout broadcast. */
class VoteGame extends CounterGame {
  tally = { a: 0, b: 0 };
  voters = new Set<number>();
  readonly onMessage = messageHandlers<typeof voteTypes>({
    vote: {
      check: checkVote,
      handle: (playerId, { choice }) => {
        if (this.voters.has(playerId)) return refuseMessage("illegal_move", "you voted already");
        this.voters.add(playerId);
        this.tally[choice]++;
        return { ...this.tally };
      },
    },
    shout: {
      check: (p) => (typeof (p as { text?: unknown })?.text === "string" ? (p as { text: string }) : refuseMessage("bad_message", "text")),
      handle: (_playerId, { text }) => {
        if (text === "boom") throw new Error("handler bug");
        this.ctx.emit(new TextEncoder().encode(text));
      },
    },
  });
}

const w = new BinaryWriter();
const hello = () => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: "p" }).toBytes();
const msg = (id: number, type: string, payload: unknown) => encodeRoomMessage(w.reset(), id, type, JSON.stringify(payload)).toBytes();

function setup(opts: Partial<RoomOptions> = {}, game: Game = new VoteGame()) {
  const clock = new FakeClock();
  const room = new Room({ kind: "counter", roomId: "r1", game, clock, options: { tickMs: 50, syncIntervalMs: 50, ...opts } });
  const join = () => {
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, hello());
    return { conn, id };
  };
  return { clock, room, join, game };
}

const replies = (conn: FakeConnection) => conn.messages().filter((m): m is ReplyMessage => m.kind === "reply");
const errors = (conn: FakeConnection) => conn.messages().filter((m) => m.kind === "error") as { code: number; reason: string; retryAfterMs: number }[];

describe("typed handlers (compile time)", () => {
  it("take the declared request after the check and must return the declared response", () => {
    messageHandlers<typeof voteTypes>({
      vote: {
        check: checkVote,
        // @ts-expect-error: the vote's response is { a, b }, not a string
        handle: (_id, req) => (expectTypeOf(req).toEqualTypeOf<{ choice: "a" | "b" }>(), "ok"),
      },
      shout: { check: () => ({ text: "" }), handle: () => {} },
    });
    // @ts-expect-error: every declared message needs a handler (shout is missing)
    messageHandlers<typeof voteTypes>({ vote: { check: checkVote, handle: () => ({ a: 0, b: 0 }) } });
    messageHandlers<typeof voteTypes>({
      // @ts-expect-error: a validator that yields another shape than the declared request
      vote: { check: () => ({ choice: "c" }), handle: () => ({ a: 0, b: 0 }) },
      shout: { check: () => ({ text: "" }), handle: () => {} },
    });
  });
});

describe("room messages", () => {
  it("route to the game's handler: replies by request id, refusals by code, events to others", () => {
    const { clock, room, join } = setup();
    const ann = join();
    const bob = join();
    room.message(ann.id, msg(7, "vote", { choice: "a" }));
    expect(replies(ann.conn)).toEqual([{ kind: "reply", requestId: 7, code: 0, retryAfterMs: 0, reason: "", value: { a: 1, b: 0 } }]);
    room.message(ann.id, msg(8, "vote", { choice: "b" }));
    room.message(bob.id, msg(1, "vote", { choice: "x" }));
    room.message(bob.id, msg(2, "nope", {}));
    expect(replies(ann.conn)[1]).toMatchObject({ requestId: 8, code: ErrorCode.illegal_move, reason: "you voted already" });
    expect(replies(bob.conn).map((r) => [r.requestId, r.code])).toEqual([
      [1, ErrorCode.bad_message],
      [2, ErrorCode.unknown_message],
    ]);
    // A shout (no request id) is broadcast as an event at the next flush and gets no reply.
    room.message(bob.id, msg(0, "shout", { text: "hi" }));
    clock.advance(50);
    const events = ann.conn.frames().flatMap((f) => (f.kind === "frame" ? f.events.map((e) => new TextDecoder().decode(e)) : []));
    expect(events).toEqual(["hi"]);
    expect(replies(bob.conn).length).toBe(2);
    expect(room.snapshot().gameMessages).toEqual({
      received: 5,
      handled: 2,
      refused: 3,
      refusedByCode: { illegal_move: 1, bad_message: 1, unknown_message: 1 },
    });
    expect(ann.conn.closedWith).toBeNull();
    expect(bob.conn.closedWith).toBeNull();
  });

  it("refuse without a request id as an ERROR; oversize, non-JSON and throwing handlers get their own codes", () => {
    const { room, join } = setup();
    const s = join();
    room.message(s.id, msg(0, "vote", { choice: 1 }));
    expect(errors(s.conn).map((e) => e.code)).toEqual([ErrorCode.bad_message]);
    room.message(s.id, msg(3, "shout", { text: "x".repeat(MAX_MESSAGE_PAYLOAD_CHARS) }));
    room.message(s.id, encodeRoomMessage(w.reset(), 4, "shout", "{not json").toBytes());
    room.message(s.id, msg(5, "shout", { text: "boom" }));
    expect(replies(s.conn).map((r) => [r.requestId, r.code])).toEqual([
      [3, ErrorCode.message_too_large],
      [4, ErrorCode.bad_message],
      [5, ErrorCode.internal],
    ]);
    const snap = room.snapshot();
    expect(snap.gameMessages.refusedByCode).toEqual({ bad_message: 2, message_too_large: 1, internal: 1 });
    expect(snap.errors.internal).toBe(1);
    expect(s.conn.closedWith).toBeNull();
  });

  it("a reply JSON cannot carry (a function) is refused internal, not left unanswered", () => {
    class FnGame extends CounterGame {
      onMessage = () => () => 1;
    }
    const { room, join } = setup({}, new FnGame());
    const s = join();
    room.message(s.id, msg(1, "anything", null));
    expect(replies(s.conn)[0]).toMatchObject({ requestId: 1, code: ErrorCode.internal });
    expect(room.snapshot().gameMessages).toMatchObject({ handled: 0, refusedByCode: { internal: 1 } });
  });

  it("a game without onMessage refuses every message unknown_message", () => {
    const { room, join } = setup({}, new CounterGame());
    const s = join();
    room.message(s.id, msg(1, "vote", { choice: "a" }));
    expect(replies(s.conn)[0]).toMatchObject({ requestId: 1, code: ErrorCode.unknown_message });
  });

  it("are refused before hello, and the pre-hello socket is closed", () => {
    const { room } = setup();
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, msg(1, "vote", { choice: "a" }));
    expect(errors(conn)[0]?.code).toBe(ErrorCode.not_joined);
    expect(conn.closedWith?.code).toBe(CloseCode.too_many_errors);
    expect(room.snapshot().gameMessages.received).toBe(0);
  });

  it("a type named after an Object.prototype member is an unknown message, not a call", () => {
    const { room, join } = setup();
    const s = join();
    for (const [i, type] of ["constructor", "toString", "hasOwnProperty"].entries()) room.message(s.id, msg(i + 1, type, {}));
    expect(replies(s.conn).map((r) => r.code)).toEqual([ErrorCode.unknown_message, ErrorCode.unknown_message, ErrorCode.unknown_message]);
  });
});

describe("message rate and refusal budget", () => {
  it("a burst over the socket's message rate is refused rate_limited with a retry hint; the rate refills", () => {
    const { clock, room, join } = setup({ gameMessageRatePerSec: 5, gameMessageBurst: 10 });
    const s = join();
    for (let i = 1; i <= 12; i++) room.message(s.id, msg(i, "shout", { text: `${i}` }));
    const limited = replies(s.conn).filter((r) => r.code === ErrorCode.rate_limited);
    expect(limited.map((r) => r.requestId)).toEqual([11, 12]);
    expect(limited[0]!.retryAfterMs).toBeGreaterThan(0);
    expect(limited[0]!.retryAfterMs).toBeLessThanOrEqual(200);
    clock.advance(200); // one token back at 5/s
    room.message(s.id, msg(13, "vote", { choice: "a" }));
    expect(replies(s.conn).at(-1)).toMatchObject({ requestId: 13, code: 0 });
    expect(room.snapshot().gameMessages).toMatchObject({ received: 13, handled: 11, refused: 2, refusedByCode: { rate_limited: 2 } });
    expect(s.conn.closedWith).toBeNull();
  });

  it("a client that keeps sending refused messages spends the refusal budget and is closed 4010", () => {
    const { room, join } = setup({ gameMessageRatePerSec: 1000, gameMessageBurst: 1000, rejectedFramesPerSec: 5, rejectedFramesBurst: 8, msgBurst: 1000, msgRatePerSec: 1000 });
    const s = join();
    const honest = join();
    for (let i = 1; i <= 20 && !s.conn.closedWith; i++) room.message(s.id, msg(i, "nope", {}));
    expect(s.conn.closedWith?.code).toBe(CloseCode.too_many_errors);
    expect(replies(s.conn).length).toBe(8); // the budget's burst, then the kick
    const snap = room.snapshot();
    expect(snap.errors.too_many_refusals).toBe(1);
    expect(snap.gameMessages.refusedByCode.unknown_message).toBe(9);
    expect(room.seatCount).toBe(1); // an abuse kick frees the seat
    room.message(honest.id, msg(1, "vote", { choice: "b" }));
    expect(replies(honest.conn)[0]).toMatchObject({ code: 0, value: { a: 0, b: 1 } });
  });
});

/** A turn-based JSON room with a message that marks state changed. */
class JsonVoteGame implements Game<unknown> {
  readonly kind = "jvote";
  readonly ticking = false;
  votes = 0;
  ctx!: GameContext;
  readonly sync = { mode: "json" as const, source: { viewFor: () => ({ votes: this.votes }) } };
  readonly onMessage = messageHandlers<typeof voteTypes>({
    vote: { check: checkVote, handle: () => (this.votes++, this.ctx.markChanged(), { a: this.votes, b: 0 }) },
    shout: { check: () => refuseMessage("bad_message", "no shouting here"), handle: () => {} },
  });
  init(ctx: GameContext): void {
    this.ctx = ctx;
  }
  join(): void {}
  leave(): void {}
  decodeInput(p: unknown): unknown {
    return p;
  }
  applyInput(): void {}
  tick(): void {}
}

describe("JSON dialect", () => {
  it("answers msg with reply, in the same shapes, and counts the same way", async () => {
    const clock = new FakeClock();
    const room = new Room({ kind: "jvote", roomId: "r", game: new JsonVoteGame(), clock });
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name: "j" }));
    room.message(id, JSON.stringify({ t: "msg", type: "vote", id: 3, data: { choice: "a" } }));
    room.message(id, JSON.stringify({ t: "msg", type: "shout", id: 4, data: { text: "x" } }));
    room.message(id, JSON.stringify({ t: "msg", type: "vote", id: 5, data: { choice: "a".repeat(MAX_MESSAGE_PAYLOAD_CHARS) } }));
    room.message(id, JSON.stringify({ t: "msg", type: "shout" })); // no id: refused as an error
    await Promise.resolve();
    const got = conn.json().filter((m) => m.t === "reply" || m.t === "error");
    expect(got).toEqual([
      { t: "reply", id: 3, data: { a: 1, b: 0 } },
      { t: "reply", id: 4, code: ErrorCode.bad_message, name: "bad_message", reason: "no shouting here" },
      { t: "reply", id: 5, code: ErrorCode.message_too_large, name: "message_too_large", reason: expect.stringContaining("exceeds") },
      { t: "error", code: ErrorCode.bad_message, name: "bad_message", reason: "no shouting here" },
    ]);
    // The vote marked the state changed: the view went out with it.
    expect(conn.json().some((m) => m.t === "state" && m.state?.votes === 1)).toBe(true);
    expect(room.snapshot().gameMessages).toMatchObject({ received: 4, handled: 1, refused: 3 });
  });
});
