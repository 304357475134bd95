/**
 * The restart drill: a full agar room (100 players on the SDK) and a tic-tac-toe game under
 * `wrangler dev`, the server killed mid-match and started again on the same port and state
 * directory, twice: once as it was, once with a code change (a new deployment's bundle). After
 * each restart every player must be back in its own seat within 5 s of the server answering,
 * its cell where it was shown it at most one checkpoint interval before the kill (same entity,
 * place, radius and score: the world came back from the checkpoint, not a fresh spawn), and the
 * tic-tac-toe board unchanged. See AGENTS.md, "Restarts and what survives".
 *
 * Knobs for a longer local run: TIKRON_DRILL_PLAYERS (default 100), TIKRON_DRILL_CHECKPOINT_MS
 * (the room's checkpoint interval, default 2000; the room default is 5000).
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";
import { changedCopy, continuesFrom, DrillPlayer, TttPair } from "./restartDrill";
import { until } from "../../../test/roomProtocol/jsonClient";
import { Random, seedFrom } from "@tikron/games";

const PLAYERS = Number(process.env.TIKRON_DRILL_PLAYERS ?? 100);
const CHECKPOINT_MS = Number(process.env.TIKRON_DRILL_CHECKPOINT_MS ?? 2000);
/** How long everyone plays before each kill: past one periodic checkpoint, whatever the phase. */
const PLAY_MS = CHECKPOINT_MS + 1500;
/** A checkpoint is taken up to one interval before the kill, and written a moment after. */
const WINDOW_MS = CHECKPOINT_MS + 500;
const BACK_WITHIN_MS = 5_000;

const servers: WranglerDevServer[] = [];
const workers: FrozenWorker[] = [];
const players: DrillPlayer[] = [];
let ttt: TttPair | undefined;

afterAll(async () => {
  for (const p of players) p.close();
  ttt?.close();
  await Promise.allSettled(servers.map((s) => s.stop()));
  for (const dir of new Set(servers.map((s) => s.persistDir))) rmSync(dir, { recursive: true, force: true });
  for (const w of workers) w.remove();
});

/** Every start keeps the state directory (a restart reuses it); the drill removes it at the end. */
async function start(worker: FrozenWorker, after?: WranglerDevServer): Promise<WranglerDevServer> {
  const s = await startWranglerDev({ config: worker.configPath, keepState: true, ...(after ? { port: after.port, persistDir: after.persistDir } : {}) });
  servers.push(s);
  return s;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("restart drill", () => {
  it(`${PLAYERS} agar players and a tic-tac-toe game survive a restart and a code change`, async () => {
    const worker = await freezeWorker("wrangler.staging.jsonc");
    workers.push(worker);
    const changed = changedCopy(worker, "drill-build-2");
    workers.push(changed);

    let server = await start(worker);
    const query = `cap=${PLAYERS}&checkpointMs=${CHECKPOINT_MS}&joinRatePerSec=200&joinBurst=200`;
    const url = `${server.wsUrl}?${query}`;
    const rng = new Random(seedFrom("restart-drill"));
    for (let i = 0; i < PLAYERS; i++) players.push(new DrillPlayer(url, "drill", `d${i}`, () => rng.next()));
    ttt = await TttPair.seat(server.wsUrl, "drill-ttt");
    expect(await until(() => players.every((p) => p.firstAfterWelcome.length === 1), 30_000), "not every player joined").toBe(true);
    ttt.x.sendInput({ cell: 0 });
    expect(await until(() => ttt!.o.state?.turn === "O")).toBe(true);
    ttt.o.sendInput({ cell: 4 });
    expect(await until(() => ttt!.x.state?.board[4] === "O")).toBe(true);
    const ids = players.map((p) => p.conn.playerId);
    expect(new Set(ids).size).toBe(PLAYERS);

    for (const [round, next] of [worker, changed].entries()) {
      await sleep(PLAY_MS);
      const board = ttt.x.state!.board.slice();
      const welcomesBefore = players.map((p) => p.welcomes.length);
      const downAt = performance.now();
      await server.stop();
      server = await start(next, server);
      const upAt = performance.now();
      if (next === changed) expect(await until(() => server.output().includes("build drill-build-2"), 10_000), "the changed bundle did not load").toBe(true);

      const back = await until(() => players.every((p, i) => p.firstAfterWelcome.length > welcomesBefore[i]!), BACK_WITHIN_MS + 5_000);
      const late = players.filter((p, i) => p.firstAfterWelcome.length <= welcomesBefore[i]!).length;
      expect(back, `round ${round}: ${late} of ${PLAYERS} players not back`).toBe(true);

      const slowest = Math.max(...players.map((p, i) => p.welcomes[welcomesBefore[i]!]!.at - upAt));
      const lost: string[] = [];
      for (const [i, p] of players.entries()) {
        const w = p.welcomes[welcomesBefore[i]!]!;
        expect(w, `round ${round}: player ${i} got another seat`).toMatchObject({ reconnected: true, playerId: ids[i] });
        const restored = p.firstAfterWelcome[welcomesBefore[i]!]!;
        if (!continuesFrom(p, restored, downAt, WINDOW_MS)) lost.push(`player ${ids[i]}: ${JSON.stringify(restored)}, last seen ${JSON.stringify(p.lastSeenBefore(downAt))}`);
      }
      expect(lost, `round ${round}: cells not continuing from the checkpoint`).toEqual([]);
      expect(slowest, `round ${round}: slowest player back ${Math.round(slowest)} ms after the server answered`).toBeLessThan(BACK_WITHIN_MS);

      expect(await until(() => ttt!.x.state?.board !== undefined && ttt!.o.status === "joined" && ttt!.o.state?.board !== undefined, 10_000)).toBe(true);
      expect(ttt.boards()).toEqual([board, board]);
      console.log(`[drill] round ${round}${round === 1 ? " (code change)" : ""}: ${PLAYERS} players back in their seats, slowest ${Math.round(slowest)} ms after the server answered; every cell continued from the checkpoint`);
    }
    // The match goes on: X plays on the restored board.
    ttt.x.sendInput({ cell: 8 });
    expect(await until(() => ttt!.o.state?.board[8] === "X")).toBe(true);
    for (const p of players) expect(p.errors).toEqual([]);
  }, 240_000);
});
