/**
 * ttt-json keeps its results (the persistence recipe of docs/write-your-own-room.md, tested
 * with the harness): every finished round lands in the room's store (shown as `recent`, handed
 * to the next room under the id) and, with a `RESULTS` binding, in a database through
 * `ctx.defer`; `recentRounds` reads the history back. The database here is a stand-in that
 * answers the two statements the way SQL would.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { recentRounds, type ResultsDatabase, type TttEnv } from "../src/index";
import type { TttRoundResult } from "../src/schemas";
import { tttRoom, tttTable } from "./tttTable";

interface Row {
  room_id: string;
  ended_at: number;
  round: number;
  x_name: string;
  o_name: string;
  outcome: string;
  forfeit: number;
}

/** A stand-in for the D1 binding: the insert and the select of tttResults.ts over an array. */
class FakeResults implements ResultsDatabase {
  readonly rows: Row[] = [];
  failing = false;
  prepare(query: string) {
    return {
      bind: (...v: unknown[]) => ({
        run: async () => {
          if (this.failing) throw new Error("D1_ERROR: no such table: ttt_rounds");
          expect(query).toMatch(/^INSERT INTO ttt_rounds /);
          this.rows.push({ room_id: v[0] as string, ended_at: v[1] as number, round: v[2] as number, x_name: v[3] as string, o_name: v[4] as string, outcome: v[5] as string, forfeit: v[6] as number });
        },
        all: async () => {
          expect(query).toMatch(/^SELECT .* FROM ttt_rounds WHERE room_id = \?1 ORDER BY ended_at DESC, round DESC LIMIT \?2$/);
          const results = this.rows
            .filter((r) => r.room_id === v[0])
            .sort((a, b) => b.ended_at - a.ended_at || b.round - a.round)
            .slice(0, v[1] as number);
          return { results: results.map((r) => ({ ...r })) };
        },
      }),
    };
  }
}

afterEach(() => vi.restoreAllMocks());

async function table(env?: TttEnv) {
  const { t, x, o, play } = await tttTable({ roomId: "t1", env });
  /** X takes the top row while O plays the middle one. */
  const xWins = async () => {
    for (const [c, cell] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as const) await play(c, { cell });
  };
  return { t, x, o, play, xWins };
}

describe("ttt-json keeps its results", () => {
  it("writes each finished round to RESULTS off the tick path and shows the last ones to players; the history reads back newest first", async () => {
    const db = new FakeResults();
    const { t, x, o, play, xWins } = await table({ RESULTS: db });
    await xWins();
    expect(db.rows).toEqual([{ room_id: "t1", ended_at: expect.any(Number), round: 1, x_name: "xena", o_name: "otto", outcome: "X", forfeit: 0 }]);
    expect(x.state.recent).toEqual([{ round: 1, endedAt: db.rows[0]!.ended_at, x: "xena", o: "otto", outcome: "X", forfeit: false }]);

    // The next round ends with O leaving: a forfeit, named while both seats were still taken.
    await play(x, { rematch: true });
    await play(o, { rematch: true });
    await play(o, { cell: 4 });
    o.leave();
    await t.settle();
    expect(db.rows.map((r) => [r.round, r.outcome, r.forfeit, r.o_name])).toEqual([
      [1, "X", 0, "otto"],
      [2, "X", 1, "otto"],
    ]);
    const history = await recentRounds(db, "t1");
    expect(history.map((r) => [r.round, r.forfeit])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(x.state.recent).toEqual(history);
    expect(await recentRounds(db, "elsewhere")).toEqual([]);
    expect(t.stats().deferred).toMatchObject({ started: 2, done: 2, failed: 0, pending: 0 });
  });

  it("keeps the last rounds in the room's store: the next room under the id shows them", async () => {
    const first = await table();
    await first.xWins();
    const kept = JSON.parse(JSON.stringify(first.t.room.storeSnapshot()));
    // No RESULTS binding: nothing deferred, the store still keeps the round.
    expect(first.t.stats().deferred.started).toBe(0);

    const next = tttRoom({ roomId: "t1", store: kept });
    const ann = next.join("ann");
    await next.settle();
    expect(ann.state.recent.map((r: TttRoundResult) => [r.round, r.x, r.o, r.outcome])).toEqual([[1, "xena", "otto", "X"]]);
  });

  it("a database that fails is logged and counted; the room plays on", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const db = new FakeResults();
    db.failing = true;
    const { t, x, o, play, xWins } = await table({ RESULTS: db });
    await xWins();
    expect(t.stats().deferred).toMatchObject({ started: 1, failed: 1 });
    expect(t.stats().errors).toMatchObject({ deferred_failed: 1 });
    expect(error).toHaveBeenCalledWith(expect.stringContaining("[room ttt-json:t1] deferred save round failed:"), "D1_ERROR: no such table: ttt_rounds");
    await play(x, { rematch: true });
    await play(o, { rematch: true });
    expect(x.state).toMatchObject({ status: "playing", round: 2, recent: [{ round: 1, outcome: "X" }] });
  });

  it("keeps only the last few rounds in the store", async () => {
    const { x, o, play, xWins } = await table();
    for (let i = 0; i < 7; i++) {
      await xWins();
      await play(x, { rematch: true });
      await play(o, { rematch: true });
      // X and O take turns opening; let O open and lose on even rounds too.
      if (x.state.turn === "O") await play(o, { cell: 8 });
    }
    expect(x.state.recent.map((r: TttRoundResult) => r.round)).toEqual([7, 6, 5, 4, 3]);
  });
});
