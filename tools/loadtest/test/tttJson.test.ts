import { testPlayer } from "@tikron/core/testing";
import { detachedContext } from "@tikron/core";
import { TicTacToeGame, decodeTttInput } from "@tikron/games";
import { describe, expect, it } from "vitest";
import { Rng } from "../src/scenarios/rng";
import { applyTttView, newTttPlayer, nextTttInput, tttJsonScenario, tttWantsToAct, type TttPlayer } from "../src/scenarios/tttJson";

/** Two scenario players against the real game rules, views delivered after every change. */
function table(seed: number) {
  const game = new TicTacToeGame();
  let changed = false;
  game.init(detachedContext({ markChanged: () => void (changed = true) }));
  const ids = [1, 2];
  const players: TttPlayer[] = [newTttPlayer(), newTttPlayer()];
  const rngs = [new Rng(seed), new Rng(seed + 1)];
  const counters: Record<string, number> = {};
  const refusals: string[] = [];
  const deliver = (): void => {
    if (!changed) return;
    changed = false;
    players.forEach((p, i) => expect(applyTttView(p, JSON.parse(JSON.stringify(game.viewFor(ids[i]))), counters)).toBe(true));
  };
  game.join(testPlayer(1, "a"));
  deliver();
  game.join(testPlayer(2, "b"));
  deliver();
  /** Lets whichever player wants to act send one input; false when nobody wants to. */
  const step = (): boolean => {
    const i = players.findIndex(tttWantsToAct);
    if (i < 0) return false;
    const data = nextTttInput(players[i], rngs[i], counters);
    const decoded = decodeTttInput(data);
    if ("rejected" in decoded) throw new Error(`invalid input ${JSON.stringify(data)}: ${decoded.reason}`);
    const r = game.applyInput(ids[i], decoded);
    if (r && "rejected" in r) refusals.push(r.code);
    deliver();
    return true;
  };
  return { game, players, counters, refusals, step };
}

describe("ttt-json scenario", () => {
  it("plays legal random games and rematches: no refusal over many rounds", () => {
    const t = table(11);
    let inputs = 0;
    while (t.players[0].round < 40 && inputs < 1000 && t.step()) inputs++;
    expect(t.refusals).toEqual([]);
    expect(t.players[0].round).toBe(40);
    // Rounds 1..39 finished, each counted once (by the player whose move ended it).
    expect(t.counters.games_finished).toBe(39);
    // Both players vote after each finished round.
    expect(t.counters.rematches).toBe(2 * 39);
    // 5 to 9 moves per round.
    expect(t.counters.moves).toBeGreaterThanOrEqual(5 * 39);
    expect(t.counters.moves).toBeLessThanOrEqual(9 * 40);
    const v = t.game.viewFor(1);
    expect(v.score.X + v.score.O + v.score.draws).toBe(39);
  });

  it("only the player whose turn it is wants to act; nobody acts while waiting for an opponent", () => {
    const p = newTttPlayer();
    const counters: Record<string, number> = {};
    const base = { board: Array(9).fill(null), seats: { X: { playerId: 1 }, O: null }, winner: null, line: null, forfeit: false, rematch: [], round: 0, score: {} };
    expect(applyTttView(p, { ...base, you: "X", status: "waiting", turn: null }, counters)).toBe(true);
    expect(tttWantsToAct(p)).toBe(false);
    const seated = { ...base, seats: { X: { playerId: 1 }, O: { playerId: 2 } }, round: 1 };
    applyTttView(p, { ...seated, you: "X", status: "playing", turn: "O" }, counters);
    expect(tttWantsToAct(p)).toBe(false);
    expect(nextTttInput(p, new Rng(1), counters)).toBeUndefined();
    const board = ["O", "X", "O", "X", null, "X", "O", "O", "X"];
    applyTttView(p, { ...seated, board, you: "X", status: "playing", turn: "X" }, counters);
    expect(tttWantsToAct(p)).toBe(true);
    expect(nextTttInput(p, new Rng(1), counters)).toEqual({ cell: 4 });
    // Round over, the opponent already voted: vote once; an opponent who left gets no vote.
    applyTttView(p, { ...seated, board, you: "X", status: "draw", turn: null, rematch: ["O"] }, counters);
    expect(nextTttInput(p, new Rng(1), counters)).toEqual({ rematch: true });
    applyTttView(p, { ...seated, board, you: "X", status: "draw", turn: null, rematch: ["O", "X"] }, counters);
    expect(tttWantsToAct(p)).toBe(false);
    applyTttView(p, { ...base, board, you: "X", status: "won", turn: null, forfeit: true }, counters);
    expect(tttWantsToAct(p)).toBe(false);
    expect(counters).toEqual({ moves: 1, rematches: 1, games_finished: 1 });
  });

  it("refuses views that are not the room's shape instead of guessing", () => {
    const p = newTttPlayer();
    const c: Record<string, number> = {};
    for (const bad of [null, 5, { board: [] }, { board: Array(9).fill(null), you: "Z", status: "playing", turn: null, rematch: [], round: 1, seats: {} }]) {
      expect(applyTttView(p, bad, c)).toBe(false);
    }
    expect(p).toEqual(newTttPlayer());
  });

  it("counts illegal_move and not_your_turn refusals of its own inputs, nothing else", () => {
    const c: Record<string, number> = {};
    const p = tttJsonScenario.createPlayer(new Rng(1));
    for (const name of ["illegal_move", "not_your_turn", "bad_input", "rate_limited"]) tttJsonScenario.onError!(p, name, c);
    expect(c).toEqual({ illegal_moves: 2 });
  });
});
