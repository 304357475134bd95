/**
 * The load tool end to end against real `wrangler dev` (staging config, DEV_MODE): what it
 * reports must agree with what the rooms themselves counted. The Worker runs from a bundled
 * copy, so edits elsewhere in the tree cannot reload the server (and drop every socket) mid-run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezeWorker, type FrozenWorker } from "../../../apps/gateway/test/hardeningWorker";
import { expectGeneratorHealthy } from "./generatorHealth";
import { startWranglerDev, type WranglerDevServer } from "../../../apps/gateway/test/harness/wranglerDev";
import { runLoad, type Report } from "../src/index";

let server: WranglerDevServer | undefined;
let frozen: FrozenWorker | undefined;

beforeAll(async () => {
  frozen = await freezeWorker("wrangler.staging.jsonc");
  server = await startWranglerDev({ config: frozen.configPath });
  // The first Durable Object request of a fresh workerd can hang for a while on a loaded
  // machine; a throwaway run until one player joins also warms the generator up.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await runLoad({ url: server.wsUrl, players: 1, rooms: 1, durationSec: 0.3, rampSec: 0, roomStats: false, name: "warmup" });
    if (r.summary.clients.joined === 1) break;
    if (Date.now() > deadline) throw new Error(`no room answered a join within 60 s: ${JSON.stringify(r.summary.failureReasons)}`);
  }
}, 240_000);

afterAll(async () => {
  await server?.stop();
  frozen?.remove();
});

/** The room's own counters, as the report stored them verbatim. */
interface TkStats {
  kind: string;
  ccu: number;
  inputs: { received: number; processed: number; rejected: number };
  refused: Record<string, number>;
  game: Record<string, number>;
}

function tkStats(r: Report, i: number): TkStats {
  const snap = r.rooms[i].tkStats;
  expect(snap, `tk:stats of ${r.rooms[i].roomId}: ${r.rooms[i].tkStatsError}`).not.toBeNull();
  return snap!.stats as TkStats;
}

describe("load tool against wrangler dev", () => {
  // Retried once, as the Node-host end-to-end test is: one stall of the shared VM under the
  // generator (tens of ms; steal time shows in no process's CPU) can push a run this short below
  // 99 % on schedule, and the tool reporting that is correct behaviour. Each try gets fresh rooms.
  it("agar, 20 players in one room: figures are plausible and match the room's tk:stats", { retry: 1, timeout: 90_000 }, async () => {
    const r = await runLoad({ url: server!.wsUrl, scenario: "agar", players: 20, rooms: 1, durationSec: 5, rampSec: 2, name: "it-agar" });
    const s = r.summary;
    expect(s.clients).toEqual({ planned: 20, joined: 20, refused: 0, throttled: 0, failed: 0 });
    expect(s.unexpectedCloses).toBe(0);
    expect(s.decodeErrors).toBe(0);
    expect(s.errors).toEqual({});
    expect(s.tickMs).toEqual([50]);
    expect(s.expectedGapMs).toEqual([50]);
    // 20 players x 20 Hz over ~5-7 s joined.
    expect(s.inputs.sent).toBeGreaterThan(20 * 20 * 4);
    expect(s.inputs.acked).toBe(s.inputs.sent);
    expect(s.inputs.unackedAtEnd).toBe(0);
    expect(s.ackRttMs.count).toBe(s.inputs.acked);
    expect(s.ackRttMs.p50).toBeGreaterThan(0);
    expect(s.ackRttMs.p50).toBeLessThanOrEqual(200);
    expect(Math.abs(s.frameGapMs.p50 - 50), `state frame gap p50 ${s.frameGapMs.p50} ms`).toBeLessThanOrEqual(10);
    expect(s.perClient.stateFramesPerSec).toBeGreaterThan(15);
    expect(s.perClient.downlinkBytesPerSec).toBeGreaterThan(0);
    expect(s.perClient.uplinkBytesPerSec).toBeGreaterThan(0);
    // Binary rooms get no keepalive from the tool: the idle figures stay at zero.
    expect(s.perClient.idle).toEqual({ downlinkBytesPerSec: 0, uplinkBytesPerSec: 0 });

    // tk:stats is fetched after the drain, before anyone leaves: every input the tool sent has
    // arrived (all acked), and the room id is fresh, so the room's count is exactly ours.
    expect(s.roomStats).toMatchObject({ fetched: 1, missing: 0 });
    const st = tkStats(r, 0);
    expect(st.kind).toBe("agar");
    expect(st.ccu).toBe(20);
    expect(st.inputs.received).toBe(s.inputs.sent);
    expect(st.inputs.processed).toBe(s.inputs.sent);
    expect(st.inputs.rejected).toBe(0);
    expect(s.roomStats.flushP99Ms).not.toBeNull();
    expectGeneratorHealthy(r);
  });

  it("capacity mode: 25 players at a 20-seat agar room, 5 refused with room_full, none failed", { timeout: 60_000 }, async () => {
    const r = await runLoad({ url: server!.wsUrl, scenario: "agar", players: 25, rooms: 1, durationSec: 1, rampSec: 1.5, name: "it-capacity" });
    const s = r.summary;
    expect(s.clients).toEqual({ planned: 25, joined: 20, refused: 5, throttled: 0, failed: 0 });
    expect(s.failureReasons).toEqual({});
    expect(s.errors).toEqual({ room_full: 5 });
    expect(s.unexpectedCloses).toBe(0);
    const st = tkStats(r, 0);
    expect(st.ccu).toBe(20);
    expect(st.refused.room_full).toBe(5);
  });

  // Retried once for the same reason as the agar run: one stall of the shared VM under the
  // generator (tens of ms; steal time shows in no process's CPU) can push a run this short below
  // 99 % on schedule, and the tool reporting that is correct behaviour. Each try gets fresh rooms.
  it("ttt-json, 4 rooms x 2 players taking turns: moves acked, none refused, games finished", { retry: 1, timeout: 60_000 }, async () => {
    const r = await runLoad({ url: server!.wsUrl, scenario: "ttt-json", players: 2, rooms: 4, durationSec: 6, rampSec: 0.4, thinkMs: 300, name: "it-ttt" });
    const s = r.summary;
    expect(s.clients).toEqual({ planned: 8, joined: 8, refused: 0, throttled: 0, failed: 0 });
    expect(s.unexpectedCloses).toBe(0);
    expect(s.decodeErrors).toBe(0);
    expect(s.errors).toEqual({});
    expect(s.scenario.illegal_moves).toBe(0);
    // Turns alternate and each waits a think time: at most one move per 300 ms per room.
    expect(s.scenario.moves).toBeGreaterThan(4 * 8);
    expect(s.scenario.moves).toBeLessThanOrEqual(4 * Math.ceil(6400 / 300));
    expect(s.scenario.moves + s.scenario.rematches).toBe(s.inputs.sent);
    expect(s.scenario.rematches).toBeLessThanOrEqual(2 * s.scenario.games_finished);
    // A round is 5-9 moves, 1.5-2.7 s at this think time: every room finishes at least one.
    expect(s.scenario.games_finished).toBeGreaterThanOrEqual(4);
    expect(s.inputs.acked).toBe(s.inputs.sent);
    expect(s.ackRttMs.p50).toBeGreaterThan(0);
    expect(s.ackRttMs.p50).toBeLessThanOrEqual(200);
    expect(s.spikes).toBe(0);
    // Every accepted move changes the board, and each change reaches both players.
    expect(r.total.counters.stateFrames).toBeGreaterThanOrEqual(s.inputs.sent);
    expect(s.perClient.idle.uplinkBytesPerSec).toBeGreaterThan(0);
    expect(s.perClient.idle.downlinkBytesPerSec).toBeGreaterThan(0);

    expect(s.roomStats).toMatchObject({ fetched: 4, missing: 0 });
    let moves = 0;
    let inputs = 0;
    for (let i = 0; i < 4; i++) {
      const st = tkStats(r, i);
      expect(st.kind).toBe("ttt-json");
      expect(st.ccu).toBe(2);
      expect(st.inputs.rejected).toBe(0);
      moves += st.game.moves ?? 0;
      inputs += st.inputs.received;
    }
    expect(inputs).toBe(s.inputs.sent);
    expect(moves).toBe(s.scenario.moves);
    expectGeneratorHealthy(r);
  });

  it("ttt-json while nobody moves: the room sends nothing but the join views and the keepalive answers", { timeout: 60_000 }, async () => {
    // A think time longer than the run: both seats taken, the round running, nobody acts.
    const r = await runLoad({
      url: server!.wsUrl,
      scenario: "ttt-json",
      players: 2,
      rooms: 2,
      durationSec: 6,
      rampSec: 0.2,
      thinkMs: 600_000,
      keepaliveMs: 500,
      roomStats: false,
      name: "it-ttt-idle",
    });
    const c = r.total.counters;
    expect(r.summary.clients.joined).toBe(4);
    expect(r.summary.unexpectedCloses).toBe(0);
    expect(c.inputsSent).toBe(0);
    expect(c.bytesTx).toBe(c.keepaliveBytesTx);
    // ~12 keepalives per client (10 bytes each), each answered with the same text — by the
    // runtime's auto-response once the idle room sleeps.
    expect(c.keepaliveBytesTx).toBeGreaterThan(4 * 10 * 10);
    expect(c.keepaliveBytesRx).toBeGreaterThanOrEqual(c.keepaliveBytesTx - 4 * 10);
    // Beyond pongs: one welcome and at most two views per client (own join, opponent's join).
    expect(c.bytesRx - c.keepaliveBytesRx).toBeLessThan(4 * 1500);
    expect(c.stateFrames).toBeLessThanOrEqual(4 * 2);
  });
});
