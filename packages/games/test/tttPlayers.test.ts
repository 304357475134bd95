/**
 * ttt-json knows its players: the mark a player asks for (its join option, refused before the
 * seat is taken when taken), the verified sign-in name a seat shows, `whoami` (the room's record
 * of the player, after a reconnect and a restart too), and each identity's own record across
 * rooms (docs/write-your-own-room.md, "A player's own record"): in memory, and in a D1 stand-in
 * that runs the two statements the way SQL would.
 */
import { CloseCode } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { d1TttRecords, memoryTttRecords, type ResultsDatabase, type TttEnv } from "../src/index";
import type { TttRecord } from "../src/schemas";
import { tttRoom } from "./tttTable";

/** A stand-in for the D1 binding's `ttt_records` table: the upsert and the select of tttRecords.ts. */
class FakeRecordsDb implements ResultsDatabase {
  readonly rows = new Map<string, TttRecord>();
  prepare(query: string) {
    return {
      bind: (...v: unknown[]) => ({
        run: async () => {
          expect(query).toMatch(/^INSERT INTO ttt_records \(identity, wins, losses, draws, updated_at\) VALUES .* ON CONFLICT \(identity\) DO UPDATE SET wins = wins \+ excluded\.wins/);
          const r = this.rows.get(v[0] as string) ?? { wins: 0, losses: 0, draws: 0 };
          this.rows.set(v[0] as string, { wins: r.wins + (v[1] as number), losses: r.losses + (v[2] as number), draws: r.draws + (v[3] as number) });
        },
        all: async () => {
          expect(query).toBe("SELECT wins, losses, draws FROM ttt_records WHERE identity = ?1");
          const r = this.rows.get(v[0] as string);
          return { results: r ? [{ ...r }] : [] };
        },
      }),
    };
  }
}

/** X takes the top row while O plays the middle one. */
async function xWins(t: ReturnType<typeof tttRoom>, x: ReturnType<ReturnType<typeof tttRoom>["join"]>, o: typeof x): Promise<void> {
  for (const [c, cell] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as const) {
    c.input({ cell });
    await t.settle();
  }
}

describe("ttt-json: who sits where", () => {
  it("a player takes the mark it asks for; asking for a taken one is refused before a seat is taken (mark_taken)", async () => {
    const t = tttRoom();
    const o = t.join("otto", { joinOptions: { mark: "O" } });
    await t.settle();
    expect(o.state?.you).toBe("O");
    const late = t.join("late", { joinOptions: { mark: "O" } });
    await t.settle();
    expect(late.closed).toEqual({ code: CloseCode.join_refused, reason: "mark_taken: O is taken; ask for X, or for no mark" });
    expect(t.stats()).toMatchObject({ seats: 1, refused: { join_refused: 1 } });
    const x = t.join("xena");
    await t.settle();
    expect(x.state?.you).toBe("X");
    // An option that is no mark is refused by the room, naming it.
    const bad = t.join("bad", { joinOptions: { mark: "Z" as "X" } });
    expect(bad.closed).toMatchObject({ code: CloseCode.bad_request, reason: expect.stringContaining('"mark"') });
  });

  it("a seat shows the player's verified sign-in name over the one its hello chose", async () => {
    const t = tttRoom();
    t.join("whoever", { identity: "jwt:u1", claims: { name: "Ada L." } });
    const o = t.join("otto");
    await t.settle();
    expect(o.state?.seats.X?.name).toBe("Ada L.");
    expect(o.state?.seats.O?.name).toBe("otto");
  });

  it("whoami answers the room's record of the player, the same after a reconnect and after a restart from a checkpoint", async () => {
    const t = tttRoom();
    const ada = t.join("ada", { identity: "jwt:u1", claims: { name: "Ada" }, joinOptions: { mark: "O" } });
    t.join("bob");
    await t.settle();
    const record = { playerId: ada.playerId, name: "ada", identity: "jwt:u1", claims: { name: "Ada" }, options: { mark: "O" } };
    expect(await ada.request("whoami", undefined)).toEqual(record);
    ada.drop();
    ada.reconnect();
    await t.settle();
    expect(await ada.request("whoami", undefined)).toEqual(record);
    // A restart: a room made again from the checkpoint, the player back with its identity.
    const next = tttRoom();
    next.room.restoreCheckpoint(JSON.parse(JSON.stringify(t.room.checkpoint())));
    const back = next.join("ada", { identity: "jwt:u1" });
    await next.settle();
    expect(back.welcome?.reconnected).toBe(true);
    expect(back.state?.you).toBe("O");
    expect(await back.request("whoami", undefined)).toEqual(record);
  });
});

describe("ttt-json: each identity's own record across rooms", () => {
  for (const [label, env] of [
    ["in memory (the Node host's)", (): TttEnv => ({ TTT_RECORDS: memoryTttRecords() })],
    ["in D1 (RESULTS, table ttt_records)", (): TttEnv => ({ RESULTS: new FakeRecordsDb() })],
  ] as const) {
    it(`${label}: wins and losses are added when a round ends, and follow the identity into another room`, async () => {
      const shared = env();
      const t1 = tttRoom({ roomId: "a", env: shared });
      const ann = t1.join("ann", { identity: "u-ann" });
      const bob = t1.join("bob", { identity: "u-bob" });
      await t1.settle();
      expect(ann.state?.record).toEqual({ wins: 0, losses: 0, draws: 0 });
      await xWins(t1, ann, bob);
      expect(ann.state?.record).toEqual({ wins: 1, losses: 0, draws: 0 });
      expect(bob.state?.record).toEqual({ wins: 0, losses: 1, draws: 0 });

      // Another room: bob is X now and wins; both records carry over and grow.
      const t2 = tttRoom({ roomId: "b", env: shared });
      const bob2 = t2.join("bob", { identity: "u-bob" });
      const ann2 = t2.join("ann", { identity: "u-ann" });
      await t2.settle();
      expect(bob2.state?.record).toEqual({ wins: 0, losses: 1, draws: 0 });
      await xWins(t2, bob2, ann2);
      expect(bob2.state?.record).toEqual({ wins: 1, losses: 1, draws: 0 });
      expect(ann2.state?.record).toEqual({ wins: 1, losses: 1, draws: 0 });
      const store = shared.TTT_RECORDS ?? d1TttRecords(shared.RESULTS!);
      expect(await store.get("u-ann")).toEqual({ wins: 1, losses: 1, draws: 0 });
      expect(await store.get("u-nobody")).toEqual({ wins: 0, losses: 0, draws: 0 });
    });
  }

  it("keeps nothing for a throwaway anonymous identity, nor where the host keeps no records", async () => {
    const records = memoryTttRecords();
    const t = tttRoom({ env: { TTT_RECORDS: records } });
    const x = t.join("x");
    const o = t.join("o");
    await t.settle();
    await xWins(t, x, o);
    expect(x.state?.record).toBeNull();
    const bare = tttRoom();
    const y = bare.join("y", { identity: "u-y" });
    await bare.settle();
    expect(y.state?.record).toBeNull();
  });
});
