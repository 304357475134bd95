/** A kind's matchmaking over shards (match/matchmakerRpc.ts `shardedBackend`): each request on its key's shard, a listing from all. */
import { describe, expect, it } from "vitest";
import { matchError, type MatchFilters } from "@tikron/protocol";
import { shardedBackend, type MatchmakerRpc } from "../../src/match/matchmakerRpc";
import { shardOfRoom } from "../../src/match/matchHttp";
import type { Caller } from "../../src/match/seats";

/** Shards that answer with their own number and remember who asked. */
function shards(n: number, listing: (shard: number) => unknown = (s) => [{ roomId: `r${s}` }]) {
  const asked: [string, number][] = [];
  const rpc = (shard: number) =>
    new Proxy({} as MatchmakerRpc, {
      get: (_t, op: string) => async (kind: string, s: number) => {
        asked.push([op, shard]);
        if (op === "restart") throw new Error("aborted");
        expect([kind, s]).toEqual(["agar", shard]);
        return op === "rooms" ? listing(s) : { shard: s };
      },
    });
  return { asked, backend: shardedBackend("agar", n, rpc) };
}

const verified = { identity: "ann", verified: true } as unknown as Caller;
const anonymous = { identity: "anon-xyz", verified: false } as unknown as Caller;

describe("shardedBackend", () => {
  it("sends a room's, a queue entry's, a party's and a verified player's requests to the shard their key hashes to", async () => {
    const { backend } = shards(4);
    expect(await backend.joinById("room-7", verified)).toEqual({ shard: shardOfRoom("room-7", 4) });
    expect(await backend.queue({ queueId: "q-1" } as never, verified)).toEqual({ shard: shardOfRoom("q-1", 4) });
    expect(await backend.partyJoin("CODE", {} as never, verified)).toEqual({ shard: shardOfRoom("CODE", 4) });
    expect(await backend.match({} as never, verified, {} as never)).toEqual({ shard: shardOfRoom("ann", 4) });
    // An anonymous caller's identity past its `anon-` prefix.
    expect(await backend.partyCreate({} as never, anonymous, {} as never)).toEqual({ shard: shardOfRoom("xyz", 4) });
  });

  it("asks every shard for a listing, its stats and a restart; a shard's refusal is the answer", async () => {
    const { backend, asked } = shards(3);
    expect(await backend.rooms({} as MatchFilters, undefined)).toEqual([{ roomId: "r0" }, { roomId: "r1" }, { roomId: "r2" }]);
    expect(await backend.stats()).toHaveLength(3);
    expect(await backend.restart!()).toEqual({ restarted: 3 });
    expect(asked.filter(([op]) => op === "restart").map(([, s]) => s)).toEqual([0, 1, 2]);
    const refused = matchError("unavailable", "restarting");
    const one = shards(2, (s) => (s === 1 ? refused : []));
    expect(await one.backend.rooms({} as MatchFilters, undefined)).toEqual(refused);
  });
});
