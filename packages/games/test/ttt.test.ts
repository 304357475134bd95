import { CloseCode, ErrorCode } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeTttInput } from "../src/ttt/tttInput";
import { emptyBoard, isFull, TTT_LINES, winnerOf, type Board, type Mark } from "../src/ttt/tttRules";

import { tttRoom, tttTable as table, type TttPlayer as Player } from "./tttTable";

describe("ttt rules", () => {
  it("finds every line's winner and nothing on boards without a line", () => {
    for (const line of TTT_LINES) {
      for (const m of ["X", "O"] as Mark[]) {
        const b = emptyBoard();
        for (const i of line) b[i] = m;
        expect(winnerOf(b)).toEqual({ mark: m, line });
      }
    }
    // A full board with no line: a draw.
    const draw: Board = ["X", "O", "X", "X", "O", "O", "O", "X", "X"];
    expect(winnerOf(draw)).toBeNull();
    expect(isFull(draw)).toBe(true);
  });

  it("agrees with a brute-force line check on random boards", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<Mark | null>("X", "O", null), { minLength: 9, maxLength: 9 }), (b) => {
        const lines = [0, 1, 2].flatMap((r) => [[r * 3, r * 3 + 1, r * 3 + 2], [r, r + 3, r + 6]]).concat([[0, 4, 8], [2, 4, 6]]);
        const any = lines.some(([a, c, d]) => b[a!] !== null && b[a!] === b[c!] && b[a!] === b[d!]);
        expect(winnerOf(b) !== null).toBe(any);
      }),
    );
  });
});

describe("ttt input validation", () => {
  it.each([
    ["a number", 4],
    ["a string cell", { cell: "4" }],
    ["a fractional cell", { cell: 1.5 }],
    ["cell 9", { cell: 9 }],
    ["cell -1", { cell: -1 }],
    ["an array", [4]],
    ["null", null],
    ["extra keys", { cell: 4, x: 1 }],
    ["rematch false", { rematch: false }],
    ["rematch 'yes'", { rematch: "yes" }],
    ["an unknown key", { move: 4 }],
    ["an empty object", {}],
  ])("refuses %s as bad_input", (_name, data) => {
    expect(decodeTttInput(data)).toMatchObject({ rejected: true, code: "bad_input" });
  });

  it("accepts exactly the two shapes", () => {
    expect(decodeTttInput({ cell: 0 })).toEqual({ cell: 0 });
    expect(decodeTttInput({ cell: 8 })).toEqual({ cell: 8 });
    expect(decodeTttInput({ rematch: true })).toEqual({ rematch: true });
  });
});

describe("ttt-json room", () => {
  it("seats X then O, starts the round, and sends each player its own view", async () => {
    const { t, x, o } = await table();
    expect(x.state).toMatchObject({ you: "X", status: "playing", turn: "X", round: 1, board: Array(9).fill(null) });
    expect(o.state).toMatchObject({ you: "O", status: "playing", turn: "X" });
    expect(o.state.seats).toEqual({
      X: { playerId: x.playerId, name: "xena", connected: true },
      O: { playerId: o.playerId, name: "otto", connected: true },
    });
    // A third player is refused by the cap.
    const third = t.join("late");
    expect(third.closed?.code).toBe(CloseCode.room_full);
  });

  it("refuses out-of-turn and occupied moves with clear errors, counted in tk:stats", async () => {
    const { t, x, o, play } = await table();
    await play(o, { cell: 0 });
    expect(o.errors.at(-1)).toMatchObject({ code: ErrorCode.not_your_turn, name: "not_your_turn", reason: "it is X's turn" });
    await play(x, { cell: 4 });
    expect(o.state).toMatchObject({ turn: "O" });
    expect(o.state.board[4]).toBe("X");
    await play(o, { cell: 4 });
    expect(o.errors.at(-1)).toMatchObject({ code: ErrorCode.illegal_move, reason: "cell 4 is taken" });
    await play(x, { cell: 0 });
    expect(x.errors.at(-1)).toMatchObject({ code: ErrorCode.not_your_turn });
    x.inputPayloads({ cell: "0" });
    await t.settle();
    expect(x.errors.at(-1)).toMatchObject({ code: ErrorCode.bad_input });
    expect(t.stats().inputs.rejectedByCode).toEqual({ not_your_turn: 2, illegal_move: 1, bad_input: 1 });
    // Refusals change nothing: O is still to move on the same board.
    expect(o.state).toMatchObject({ turn: "O", status: "playing" });
    expect(o.state.board.filter((c) => c !== null)).toHaveLength(1);
  });

  it("detects a win, refuses further moves, and starts a rematch only when both ask", async () => {
    const { t, x, o, play } = await table();
    for (const [c, cell] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as const) await play(c, { cell });
    expect(o.state).toMatchObject({ status: "won", winner: "X", line: [0, 1, 2], turn: null, forfeit: false, score: { X: 1, O: 0, draws: 0 } });
    await play(o, { cell: 8 });
    expect(o.errors.at(-1)).toMatchObject({ code: ErrorCode.illegal_move });
    expect(o.errors.at(-1)!.reason).toMatch(/over/);
    await play(x, { rematch: true });
    expect(o.state).toMatchObject({ status: "won", rematch: ["X"] });
    await play(x, { rematch: true }); // asking twice changes nothing
    expect(o.state).toMatchObject({ status: "won", rematch: ["X"] });
    await play(o, { rematch: true });
    // Round 2: fresh board, O opens, score kept.
    expect(x.state).toMatchObject({ status: "playing", round: 2, turn: "O", rematch: [], board: Array(9).fill(null), score: { X: 1, O: 0, draws: 0 } });
    await play(x, { rematch: true });
    expect(x.errors.at(-1)).toMatchObject({ code: ErrorCode.illegal_move });
    expect(t.stats().game).toMatchObject({ moves: 5, rounds: 2 });
  });

  it("detects a draw", async () => {
    const { x, o, play } = await table();
    // X O X / X O O / O X X
    for (const [c, cell] of [[x, 0], [o, 1], [x, 2], [o, 4], [x, 3], [o, 5], [x, 7], [o, 6], [x, 8]] as const) await play(c, { cell });
    expect(x.errors).toEqual([]);
    expect(x.state).toMatchObject({ status: "draw", winner: null, turn: null, score: { X: 0, O: 0, draws: 1 } });
  });

  it("plays random legal games to a correct end", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 9, maxLength: 40 }), async (picks) => {
        const { x, o, play } = await table();
        const board: Board = emptyBoard();
        let turn: Mark = "X";
        for (const pick of picks) {
          if (x.state.status !== "playing") break;
          const free = board.map((c, i) => (c === null ? i : -1)).filter((i) => i >= 0);
          const cell = free[pick % free.length]!;
          await play(turn === "X" ? x : o, { cell });
          board[cell] = turn;
          turn = turn === "X" ? "O" : "X";
        }
        const s = x.state;
        expect(s.board).toEqual(board);
        const won = winnerOf(board);
        if (won) expect(s).toMatchObject({ status: "won", winner: won.mark });
        else if (isFull(board)) expect(s.status).toBe("draw");
        else expect(s).toMatchObject({ status: "playing", turn });
        expect(x.errors).toEqual([]);
        expect(o.errors).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it("shows a dropped opponent, and a player who leaves mid-round forfeits", async () => {
    const { t, x, o, play } = await table();
    await play(x, { cell: 4 });
    o.drop();
    await t.settle();
    expect(x.state.seats.O).toMatchObject({ connected: false });
    expect(x.state.status).toBe("playing");
    t.advance(t.room.options.reconnectWindowMs + 1);
    await t.settle();
    expect(x.state).toMatchObject({ status: "won", winner: "X", forfeit: true, seats: { O: null } });
    await play(x, { rematch: true });
    expect(x.errors.at(-1)).toMatchObject({ code: ErrorCode.illegal_move, reason: "waiting for an opponent" });
    // A newcomer takes the free seat and a fresh round starts against a fresh score.
    const n = t.join("nina");
    await t.settle();
    expect(n.state).toMatchObject({ you: "O", status: "playing", round: 2, score: { X: 0, O: 0, draws: 0 } });
  });

  it("costs nothing at idle: no tick loop, no timer, no frame", async () => {
    const { t, x, o } = await table();
    expect(t.room.loopRunning).toBe(false);
    expect(t.clock.pending).toBe(0);
    const received = x.messages.length + o.messages.length;
    t.advance(60_000);
    await t.settle();
    expect(x.messages.length + o.messages.length).toBe(received);
    expect(t.stats().ticks).toBe(0);
  });
});

describe("ttt checkpoints", () => {
  it("a restarted room continues the round on the same board, each player in its own seat", async () => {
    const { t, x, o, play } = await table();
    await play(x, { cell: 0 });
    await play(o, { cell: 4 });
    const cp = JSON.parse(JSON.stringify(t.room.checkpoint())); // what storage keeps: JSON-able

    const fresh = tttRoom();
    expect(fresh.room.restoreCheckpoint(cp)).toBe(true);
    expect(fresh.room.seatCount).toBe(2);
    const x2 = fresh.join("xena", { token: x.token });
    const o2 = fresh.join("otto", { token: o.token });
    await fresh.settle();
    expect(x2.welcome).toMatchObject({ reconnected: true, playerId: x.playerId, lastSeq: 1 });
    expect(o2.welcome).toMatchObject({ reconnected: true, playerId: o.playerId, lastSeq: 1 });
    // Seqs go on above the restored seat's last one.
    x2.input({ cell: 8 });
    await fresh.settle();
    expect(x2.errors).toEqual([]);
    expect(o2.state).toMatchObject({ board: ["X", null, null, null, "O", null, null, null, "X"], turn: "O", you: "O", round: 1 });
    expect(o2.state.seats.X).toMatchObject({ connected: true, name: "xena" });
  });

  it("a checkpoint the game cannot use starts the game fresh but keeps the seats", async () => {
    const { t } = await table();
    const cp = t.room.checkpoint() as { game?: unknown };
    cp.game = { v: 1, board: "garbage" };
    const fresh = tttRoom();
    expect(fresh.room.restoreCheckpoint(cp)).toBe(true);
    expect(fresh.room.seatCount).toBe(2);
    expect(fresh.stats().errors.checkpoint_refused).toBe(1);
  });
});
