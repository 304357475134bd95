/**
 * Matchmaking, host-independent: the SDK's `matchmaker` client against a host's `/match/…`
 * paths and its real rooms. The same tests run against the Node host
 * (packages/node/test/matchmaking.test.ts) and `wrangler dev`
 * (apps/gateway/test/matchmaking.integration.test.ts). Each test uses its own DEV_MODE room cap
 * (`?cap=N` on the matchmaker's URL), so rooms of one test never take players of another.
 */
import { afterAll, describe, expect, it } from "vitest";
import { JoinError, matchmaker, party, withMessages, type PartyView, type RoomConnection } from "@tikron/client";
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
  const stats = async (roomId: string) =>
    (await (await fetch(`${httpUrl()}/rooms/agar/${roomId}/stats`)).json()) as { seats: number; cap: number; reservations: { pending: number; released: number; used: number } };

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
      // The new room's one taken seat is in the list at once, seated or still reserved: a room
      // reports its seated count a moment after the welcome (coalesced, STATUS_COALESCE_MS on
      // Cloudflare), so the list may show the join's reservation first, then the seat.
      const fresh = listed.find((r) => r.roomId === rooms[4])!;
      expect(fresh.maxClients).toBe(4);
      expect(fresh.clients + fresh.reserved).toBe(1);
      let seated = fresh;
      for (let i = 0; i < 40 && seated.clients !== 1; i++) {
        await new Promise((r) => setTimeout(r, 50));
        seated = (await mm(4).getAvailableRooms("agar")).find((r) => r.roomId === rooms[4])!;
      }
      expect(seated).toMatchObject({ clients: 1, reserved: 0, maxClients: 4 });
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

  describe(`parties on ${hostName}`, () => {
    it("a party of three lands in one room together, each member joining its own seat with its own options; codes are read however typed", async () => {
      const m = mm(11);
      // A solo in the only open room: the party of three fits beside it, and goes there, all at once.
      const solo = keep(await m.joinOrCreate(agarGame, { name: "solo" }));
      const lead = await party(m, agarGame, { name: "lead" });
      expect(lead.view).toMatchObject({ kind: "agar", state: "open", maxSize: 11, members: [{ name: "lead", leader: true, you: true }] });
      expect(lead.view.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
      const typed = `${lead.code.slice(0, 5).toLowerCase()}-${lead.code.slice(5)}`;
      const b = await party(m, agarGame, { code: typed, name: "b" });
      const c = await party(m, agarGame, { code: lead.code, name: "c" });
      expect(c.view.members.map((x) => x.name)).toEqual(["lead", "b", "c"]);
      // The leader hears the others join (the long poll).
      const heard = await new Promise<PartyView>((resolve) => {
        if (lead.view.members.length === 3) resolve(lead.view);
        lead.onChange((v) => v.members.length === 3 && resolve(v));
      });
      expect(heard.members.map((x) => x.you)).toEqual([true, false, false]);
      await expect(b.start()).rejects.toMatchObject({ code: "forbidden" });
      const matched = await lead.start();
      expect(matched).toMatchObject({ state: "matched", seat: { roomId: solo.room, created: false } });
      const conns = await Promise.all([lead, b, c].map((p, i) => p.join({ name: `member${i}` }).then(keep)));
      expect(conns.map((x) => x.room)).toEqual([solo.room, solo.room, solo.room]);
      expect((await stats(solo.room)).seats).toBe(4);
      // A started party takes no one; an unknown code is not found.
      await expect(party(m, agarGame, { code: lead.code })).rejects.toMatchObject({ code: "locked" });
      await expect(party(m, agarGame, { code: "ZZZZZZZZZZ" })).rejects.toMatchObject({ code: "not_found" });
    });

    it("a party bigger than any room's free seats gets a new room; a party is never bigger than a room", async () => {
      const m = mm(2);
      const solo = keep(await m.joinOrCreate(agarGame, { name: "solo" }));
      const lead = await party(m, agarGame, { name: "a" });
      const c = await party(m, agarGame, { code: lead.code, name: "c" });
      await expect(party(m, agarGame, { code: lead.code, name: "d" })).rejects.toMatchObject({ code: "party_full" });
      const matched = await lead.start();
      expect(matched.seat!.roomId).not.toBe(solo.room);
      expect(matched.seat!.created).toBe(true);
      const [x, y] = await Promise.all([lead.join(), c.join()]);
      keep(x);
      keep(y);
      expect(y.room).toBe(x.room);
      expect((await stats(solo.room)).seats).toBe(1);
    });

    it("a member who leaves before joining gives back its own seat only; the others join theirs", async () => {
      const m = mm(12);
      const lead = await party(m, agarGame, { name: "a" });
      const b = await party(m, agarGame, { code: lead.code, name: "b" });
      const c = await party(m, agarGame, { code: lead.code, name: "c" });
      const matched = await lead.start();
      const room = matched.seat!.roomId;
      expect((await stats(room)).reservations.pending).toBe(3);
      expect((await b.seat()).roomId).toBe(room);
      await b.leave();
      // The room hears of it from the matchmaker after the leave is answered: wait for it, bounded.
      for (let i = 0; i < 50 && (await stats(room)).reservations.released === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect((await stats(room)).reservations).toMatchObject({ pending: 2, released: 1 });
      const conns = await Promise.all([lead.join(), c.join()]);
      for (const x of conns) keep(x);
      expect(conns.map((x) => x.room)).toEqual([room, room]);
      expect((await stats(room)).seats).toBe(2);
    });

    it("a party in the queue is one entry of its members' ratings: a party of the group's size is seated alone, together, each with its own join options", async () => {
      const m = mm();
      // A member's join options are checked when it makes or joins the party, as a match request's are.
      await expect(party(m, tttGame, { name: "x", joinOptions: { mark: "Z" as "X" } })).rejects.toMatchObject({ code: "bad_request", closeCode: 0, reason: expect.stringContaining("mark") });
      const lead = await party(m, tttGame, { name: "x", rating: 1500, joinOptions: { mark: "O" } });
      const b = await party(m, tttGame, { code: lead.code, name: "o", rating: 1520, joinOptions: { mark: "X" } });
      const matched = await lead.start({ mode: "queue" });
      expect(matched.seat).toMatchObject({ group: 2, created: true });
      const [x, o] = await Promise.all([lead.join({ name: "x" }), b.join({ name: "o" })]);
      keep(x);
      keep(o);
      expect(o.room).toBe(x.room);
      // Each member's hello carried the options it gave its party: the game seated each at the mark it asked for.
      expect((await withMessages(x).request("whoami", undefined)).options).toEqual({ mark: "O" });
      expect((await withMessages(o).request("whoami", undefined)).options).toEqual({ mark: "X" });
    });

    it("the HTTP contract: make, join, a held watch answered by a change, leave 204, refusals with their codes", async () => {
      const base = httpUrl();
      const post = (path: string, body?: unknown) => fetch(`${base}/match/agar${path}?cap=14`, { method: "POST", body: body === undefined ? null : JSON.stringify(body) });
      const made = (await (await post("/party", { name: "ann", rating: 1 })).json()) as PartyView;
      expect(made).toMatchObject({ kind: "agar", version: 1, state: "open", maxSize: 14, members: [{ name: "ann", rating: 1, leader: true, you: true }] });
      const watch = fetch(`${base}/match/agar/party/${made.code}?member=${made.member}&after=${made.version}`).then((r) => r.json() as Promise<PartyView>);
      const joined = await post(`/party/${made.code}`, { name: "bob" });
      expect(joined.status).toBe(200);
      const bob = (await joined.json()) as PartyView;
      expect(await watch).toMatchObject({ version: 2, members: [{ name: "ann" }, { name: "bob", you: false }] });
      expect((await fetch(`${base}/match/agar/party/${made.code}?member=${bob.member}`, { method: "DELETE" })).status).toBe(204);
      expect((await fetch(`${base}/match/agar/party/${made.code}?member=${bob.member}`)).status).toBe(404);
      expect(await (await post("/party", { name: 7 })).json()).toMatchObject({ code: "bad_request" });
      // Over a party body's limit (1024 characters: a name, a rating and 512 B of join options): refused like any body over its path's limit.
      const long = await post("/party", "x".repeat(1100));
      expect([long.status, await long.json()]).toMatchObject([413, { code: "too_large" }]);
      expect((await fetch(`${base}/match/agar/party/${made.code}`)).status).toBe(400);
      expect((await fetch(`${base}/match/agar/party/${made.code}`, { method: "PUT" })).status).toBe(405);
      expect((await fetch(`${base}/match/agar/party/${made.code}/start?member=${made.member}`, { method: "DELETE" })).status).toBe(404);
      expect((await fetch(`${base}/match/agar/party/${made.code}?member=${made.member}`, { method: "DELETE" })).status).toBe(204);
    });
  });
}
