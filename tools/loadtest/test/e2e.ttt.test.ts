import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../src/index";
import { startTttServer, type TttServer } from "./tttServer";

let server: TttServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("text-mode client against a loopback ttt-json room", () => {
  it("takes turns, rematches, gets every move acked and counts keepalive traffic apart", { timeout: 30_000 }, async () => {
    server = await startTttServer();
    const r = await runLoad({ url: server.url, scenario: "ttt-json", players: 2, rooms: 3, durationSec: 2, rampSec: 0.2, thinkMs: 40, keepaliveMs: 100 });
    const s = r.summary;
    expect(s.clients).toEqual({ planned: 6, joined: 6, refused: 0, throttled: 0, failed: 0 });
    expect(s.unexpectedCloses).toBe(0);
    expect(s.decodeErrors).toBe(0);
    expect(s.errors).toEqual({});
    expect(s.scenario.illegal_moves).toBe(0);
    // Turns alternate and each waits a think time: at most one move per 40 ms per room.
    expect(s.inputs.sent).toBeGreaterThan(30);
    expect(s.scenario.moves).toBeLessThanOrEqual(3 * Math.ceil(2200 / 40));
    expect(s.scenario.moves + s.scenario.rematches).toBe(s.inputs.sent);
    expect(s.scenario.games_finished).toBeGreaterThan(0);
    // Two votes per finished round, except a room's last round when the window ended first.
    expect(s.scenario.rematches).toBeLessThanOrEqual(2 * s.scenario.games_finished);
    expect(s.scenario.rematches).toBeGreaterThanOrEqual(2 * (s.scenario.games_finished - 3));
    expect(server.counters().inputs).toBe(s.inputs.sent);
    expect(s.inputs.acked).toBe(s.inputs.sent);
    expect(s.ackRttMs.count).toBe(s.inputs.sent);
    expect(s.ackRttMs.p50).toBeGreaterThan(0);
    expect(s.ackRttMs.max).toBeLessThan(250);
    // Every move changes the board: each input brings both players a view.
    expect(s.perClient.stateFramesPerSec).toBeGreaterThan(0);
    expect(r.total.counters.stateFrames).toBeGreaterThanOrEqual(s.inputs.sent);
    // Keepalive: ~10/s per client, echoed with the same text; both directions are part of the totals too.
    expect(server.counters().pings).toBeGreaterThan(6 * 10);
    expect(s.perClient.idle.uplinkBytesPerSec).toBeGreaterThan(0);
    expect(s.perClient.idle.downlinkBytesPerSec / s.perClient.idle.uplinkBytesPerSec).toBeGreaterThan(0.9);
    expect(s.perClient.idle.downlinkBytesPerSec / s.perClient.idle.uplinkBytesPerSec).toBeLessThan(1.1);
    expect(r.total.counters.keepaliveBytesTx).toBeLessThan(r.total.counters.bytesTx);
    expect(r.total.counters.keepaliveBytesRx).toBeLessThan(r.total.counters.bytesRx);
    expect(s.roomStats.fetched).toBe(3);
    expect(r.rooms[0].tkStats?.stats).toMatchObject({ kind: "ttt-json", ccu: 2 });
  });

  it("with a think time longer than the run nobody moves: only join traffic and keepalives flow", { timeout: 30_000 }, async () => {
    server = await startTttServer();
    const r = await runLoad({ url: server.url, scenario: "ttt-json", players: 2, rooms: 2, durationSec: 1.5, rampSec: 0, thinkMs: 60_000, keepaliveMs: 100, roomStats: false });
    const c = r.total.counters;
    expect(r.summary.clients.joined).toBe(4);
    expect(c.inputsSent).toBe(0);
    expect(c.bytesTx).toBe(c.keepaliveBytesTx);
    // Downlink beyond pongs: the welcome and the views sent on the two joins, once per client.
    expect(c.bytesRx - c.keepaliveBytesRx).toBeLessThan(4 * 1500);
    expect(r.status).toBe("ok");
  });

  it("counts refusals of its own moves as illegal_moves and keeps playing", { timeout: 30_000 }, async () => {
    server = await startTttServer();
    server.refuseNextMoves(3);
    const r = await runLoad({ url: server.url, scenario: "ttt-json", players: 2, rooms: 1, durationSec: 1, rampSec: 0, thinkMs: 30, keepaliveMs: 0, roomStats: false });
    expect(r.summary.scenario.illegal_moves).toBe(3);
    expect(r.summary.errors).toEqual({ not_your_turn: 3 });
    // Refused inputs are still acked, and the player tries again.
    expect(r.summary.inputs.acked).toBe(r.summary.inputs.sent);
    expect(r.summary.scenario.moves).toBeGreaterThan(3);
  });

  it("capacity mode: the third player of a 2-seat room is refused, not failed", { timeout: 30_000 }, async () => {
    server = await startTttServer();
    const r = await runLoad({ url: server.url, scenario: "ttt-json", players: 3, rooms: 2, durationSec: 0.5, rampSec: 0.3, thinkMs: 50, roomStats: false });
    expect(r.summary.clients).toEqual({ planned: 6, joined: 4, refused: 2, throttled: 0, failed: 0 });
    expect(r.summary.errors).toEqual({ room_full: 2 });
  });
});
