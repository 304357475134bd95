/**
 * Matchmaking, host-independent: the SDK's `matchmaker` client against a host's `/match/…`
 * paths and its real rooms. The same tests run against the Node host
 * (packages/node/test/matchmaking.test.ts) and `wrangler dev`
 * (apps/gateway/test/matchmaking.integration.test.ts). Each test uses its own DEV_MODE room cap
 * (`?cap=N` on the matchmaker's URL), so rooms of one test never take players of another.
 */
import { afterAll, describe, expect, it } from "vitest";
import { JoinError, matchmaker, type RoomConnection } from "@tikron/client";
import { agarTypes as agarGame, tttTypes as tttGame } from "@tikron/games/schemas";

/** Registers the matchmaking tests for one host; `httpUrl` is read when a test runs. */
export function describeMatchmaking(hostName: string, httpUrl: () => string): void {
  const open: RoomConnection<any, any, any, any>[] = [];
  afterAll(() => {
    for (const c of open.splice(0)) c.close();
  });
  const keep = <C extends RoomConnection<any, any, any, any>>(c: C): C => {
    open.push(c);
    return c;
  };
  const mm = (cap?: number) => matchmaker(cap === undefined ? httpUrl() : `${httpUrl()}?cap=${cap}`);
  const stats = async (roomId: string) => (await (await fetch(`${httpUrl()}/rooms/agar/${roomId}/stats`)).json()) as { seats: number; cap: number; reservations: { pending: number } };

  describe(`matchmaking on ${hostName}`, () => {
    it("joinOrCreate fills the open room before it opens another; the room list shows the one with seats", async () => {
      const m = mm(4);
      const rooms: string[] = [];
      for (let i = 0; i < 5; i++) {
        const c = keep(await m.joinOrCreate(agarGame, { name: `p${i}` }));
        expect(c.status).toBe("joined");
        rooms.push(c.room);
      }
      expect(new Set(rooms.slice(0, 4)).size).toBe(1);
      expect(rooms[4]).not.toBe(rooms[0]);
      expect((await stats(rooms[0]!)).seats).toBe(4);
      const listed = await mm(4).getAvailableRooms("agar");
      const ids = listed.map((r) => r.roomId);
      expect(ids).toContain(rooms[4]);
      expect(ids).not.toContain(rooms[0]);
      expect(listed.find((r) => r.roomId === rooms[4])).toMatchObject({ clients: 1, maxClients: 4 });
    });

    it("concurrent joinOrCreate requests never put more players in a room than its cap", async () => {
      const m = mm(3);
      const conns = await Promise.all(Array.from({ length: 10 }, (_, i) => m.joinOrCreate(agarGame, { name: `c${i}` }).then(keep)));
      const perRoom = new Map<string, number>();
      for (const c of conns) perRoom.set(c.room, (perRoom.get(c.room) ?? 0) + 1);
      for (const [roomId, n] of perRoom) {
        expect(n).toBeLessThanOrEqual(3);
        expect((await stats(roomId)).seats).toBe(n);
      }
      expect(perRoom.size).toBeGreaterThanOrEqual(4);
    });

    it("a private room is never listed or picked, and is joined by its id", async () => {
      const m = mm(5);
      const host = keep(await m.create(agarGame, { private: true, name: "host" }));
      const listed = (await m.getAvailableRooms("agar")).map((r) => r.roomId);
      expect(listed).not.toContain(host.room);
      const other = keep(await m.joinOrCreate(agarGame, { name: "other" }));
      expect(other.room).not.toBe(host.room);
      const friend = keep(await m.joinById(agarGame, host.room, { name: "friend" }));
      expect(friend.room).toBe(host.room);
      expect((await stats(host.room)).seats).toBe(2);
    });

    it("join finds no room with a clear no_room; bad filters and requests are refused with their codes", async () => {
      await expect(mm(6).join(agarGame)).rejects.toMatchObject({ code: "no_room" });
      await expect(mm(6).joinOrCreate(agarGame, { filters: { nope: 1 } })).rejects.toMatchObject({ code: "bad_filter" });
      await expect(mm(6).joinOrCreate("no-such-kind")).rejects.toMatchObject({ code: "unknown_kind" });
      await expect(mm(6).joinById(agarGame, "no-such-room-here")).rejects.toBeInstanceOf(JoinError);
      const res = await fetch(`${httpUrl()}/match/agar`, { method: "POST", body: JSON.stringify({ mode: "joinOrCreate", private: true }) });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "bad_request" });
    });

    it("the queue seats a group of the declared size together; leaving it answers cancelled", async () => {
      const m = mm();
      const [a, b] = await Promise.all([m.queue(tttGame, { rating: 1000, name: "a" }), m.queue(tttGame, { rating: 1040, name: "b" })]);
      keep(a);
      keep(b);
      expect(a.room).toBe(b.room);
      expect(a.status).toBe("joined");
      const listed = (await m.getAvailableRooms("ttt-json")).map((r) => r.roomId);
      expect(listed).not.toContain(a.room);
      const leave = new AbortController();
      const waiting = m.queue(tttGame, { rating: 5000, signal: leave.signal });
      setTimeout(() => leave.abort(), 300);
      await expect(waiting).rejects.toMatchObject({ code: "cancelled" });
    });
  });
}
