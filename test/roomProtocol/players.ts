/**
 * Who is joining, on every host (run by test/roomProtocol/suite.ts): through the SDK, a
 * tic-tac-toe player's identity (a DEV_MODE guest's, by its key) and join options reach the game
 * (`whoami` answers the room's record of the player) and stay after a reconnect; an option the
 * game does not declare, or out of its range, is refused `bad_request` (4014) naming it, taking
 * no seat; the game's own refusal (a mark already taken) reaches the SDK as a typed `JoinError`.
 * Sign-in claims, and a restart from a checkpoint, need a host's own setup: they are tested with
 * each host (packages/node/test/players.test.ts, apps/gateway/test/restart.integration.test.ts,
 * apps/gateway/test/operate.integration.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { JoinError, connect, gameRefusal, withMessages, type RoomConnection } from "@tikron/client";
import { CloseCode } from "@tikron/protocol";
import { tttTypes } from "@tikron/games/schemas";

/** The players' tests for one host; `wsUrl` is read when a test runs. */
export function describePlayers(hostName: string, wsUrl: () => string): void {
  const open: { close(): void }[] = [];
  afterAll(() => {
    for (const c of open) c.close();
  });
  const room = () => `players-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const key = () => `key-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`.padEnd(20, "0");
  /** A tic-tac-toe player through the SDK, as the guest of `guest` (a key), with its join options. */
  const player = (roomId: string, guest: string, joinOptions?: { mark?: "X" | "O" }, name = "p") => {
    const conn = withMessages(connect(`${wsUrl()}?guest=${guest}`, { game: tttTypes, room: roomId, name, ...(joinOptions ? { joinOptions } : {}), reconnect: { baseMs: 50, maxMs: 100, maxAttempts: 3 } }));
    open.push(conn);
    return conn;
  };
  const failure = (conn: RoomConnection): Promise<unknown> => conn.whenJoined().then(() => null, (e: unknown) => e);

  describe(`who is joining, on ${hostName}`, () => {
    it("the game sees the player's identity and join options in join and after a reconnect (whoami); another guest is another identity", async () => {
      const roomId = room();
      const ann = key();
      const a = player(roomId, ann, { mark: "O" }, "ann");
      await a.whenJoined();
      const me = await a.request("whoami", undefined);
      expect(me).toEqual({ playerId: a.playerId, name: "ann", identity: expect.stringMatching(/^guest-[A-Za-z0-9_-]{16}$/), claims: {}, options: { mark: "O" } });
      expect(await until(() => a.state?.you === "O")).toBe(true);
      // A reconnect: the same seat, the same record.
      a.reconnect();
      const back = await a.whenJoined();
      expect(back.reconnected).toBe(true);
      expect(await a.request("whoami", undefined)).toEqual(me);
      // The same key in another room is the same identity; another key is another one.
      const elsewhere = player(room(), ann);
      await elsewhere.whenJoined();
      expect((await elsewhere.request("whoami", undefined)).identity).toBe(me.identity);
      const bob = player(roomId, key(), undefined, "bob");
      await bob.whenJoined();
      expect((await bob.request("whoami", undefined)).identity).not.toBe(me.identity);
    });

    it("a join option the game does not take, or out of its range, is refused bad_request (4014) naming it; no seat is taken, and it is counted", async () => {
      const roomId = room();
      const seated = player(roomId, key());
      await seated.whenJoined();
      for (const [options, named] of [
        [{ mark: "Z" }, '"mark"'],
        [{ colour: "red" }, '"colour"'],
      ] as const) {
        const bad = connect(`${wsUrl()}?guest=${key()}`, { kind: "ttt-json", room: roomId, json: tttTypes.dialect as never, joinOptions: options, reconnect: { baseMs: 50, maxMs: 100 } });
        open.push(bad);
        const error = await failure(bad);
        expect(error).toBeInstanceOf(JoinError);
        expect(error).toMatchObject({ code: "bad_request", closeCode: CloseCode.bad_request });
        expect((error as JoinError).reason).toContain(named);
      }
      const stats = (await seated.requestStats()) as { seats: number; refused: Record<string, number> };
      expect(stats.seats).toBe(1);
      expect(stats.refused.bad_options).toBe(2);
      // The second seat is still there for a player whose options are good.
      const good = player(roomId, key(), { mark: "O" });
      await good.whenJoined();
    });

    it("the game's own refusal (the mark asked for is taken) reaches the SDK as a typed JoinError, join_refused, with the game's code", async () => {
      const roomId = room();
      const x = player(roomId, key(), { mark: "X" });
      await x.whenJoined();
      const t0 = performance.now();
      const second = player(roomId, key(), { mark: "X" });
      const error = await failure(second);
      expect(performance.now() - t0).toBeLessThan(2000);
      expect(error).toBeInstanceOf(JoinError);
      expect(error).toMatchObject({ name: "JoinError", code: "join_refused", closeCode: CloseCode.join_refused, reason: "mark_taken: X is taken; ask for O, or for no mark" });
      expect(gameRefusal(error)).toEqual({ code: "mark_taken", reason: "X is taken; ask for O, or for no mark" });
      expect(second.status).toBe("closed");
      const stats = (await x.requestStats()) as { seats: number; refused: Record<string, number> };
      expect(stats).toMatchObject({ seats: 1, refused: { join_refused: 1 } });
    });
  });
}

/** Polls `cond` every 20 ms for up to `ms`. */
async function until(cond: () => boolean, ms = 3000): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}
