/**
 * The restart drill: a full agar room (100 players on the SDK) and a tic-tac-toe game under
 * `wrangler dev`, the server killed mid-match and started again on the same port and state
 * directory, twice: once as it was, once with a code change (a new deployment's bundle). After
 * each restart every player must be back in its own seat within 5 s of the server answering,
 * its cell where it was shown it at most one checkpoint interval before the kill (same entity,
 * place, radius and score: the world came back from the checkpoint, not a fresh spawn); the cells
 * go on from within about a second of movement of where the kill left them (median jump ≤ 200
 * units: agar's cells move 260 units a second) and at least 95 % of the players keep the score
 * they last saw; the tic-tac-toe board is unchanged. See AGENTS.md, "Restarts and what survives".
 *
 * The room checkpoints at its default cadence (`checkpointMs` 1 s): what a kill takes from a
 * player is what happened between the last checkpoint and the kill. Movement alone is kept once a
 * second (the jump bar allows about a second of it); a score is what agar marks as a change a
 * player would lose (`ctx.keepSoon`), kept within 200 ms (`KEEP_SOON_MS`): agar's drill players
 * eat an orb every ~6 s, and ≥ 95 of 100 keep their score for every kill only when such a change
 * is kept within ~0.3 s (PERFORMANCE.md, "The restart drill").
 *
 * Knobs for a longer local run: TIKRON_DRILL_PLAYERS (default 100), TIKRON_DRILL_CHECKPOINT_MS
 * (the room's checkpoint interval, default: the room's own).
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";
import { changedCopy, continuesFrom, DrillPlayer, shownAs, TttPair } from "./restartDrill";
import { until } from "../../../test/roomProtocol/jsonClient";
import { Random, seedFrom } from "@tikron/games";
import { defaultRoomOptions } from "@tikron/core";

const PLAYERS = Number(process.env.TIKRON_DRILL_PLAYERS ?? 100);
/** The room's checkpoint interval (see the module comment): its default unless the knob says otherwise. */
const CHECKPOINT_OVERRIDE = process.env.TIKRON_DRILL_CHECKPOINT_MS;
const CHECKPOINT_MS = CHECKPOINT_OVERRIDE === undefined ? defaultRoomOptions.checkpointMs : Number(CHECKPOINT_OVERRIDE);
/** How long everyone plays before each kill: past a few periodic checkpoints, whatever the phase. */
const PLAY_MS = CHECKPOINT_MS + 2500;
/**
 * How old a restored cell may be and still count as continuing from a checkpoint rather than a
 * fresh spawn: a checkpoint comes every interval of room time, and a room starved of CPU (a
 * loaded machine) ticks late, so two intervals and a second. How far the cells went back is
 * held to its own bars (the jump, the scores).
 */
const WINDOW_MS = 2 * CHECKPOINT_MS + 1000;
const BACK_WITHIN_MS = 5_000;
/** Median distance from the cell last shown before the kill to the cell restored: under a second of agar's movement (260 units/s). */
const MEDIAN_JUMP_MAX = 200;
/** Share of the players who must keep the score they were last shown before the kill. */
const KEEP_SCORE_SHARE = 0.95;

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
    const query = `cap=${PLAYERS}${CHECKPOINT_OVERRIDE === undefined ? "" : `&checkpointMs=${CHECKPOINT_MS}`}&joinRatePerSec=200&joinBurst=200`;
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
      const jumps: number[] = [];
      const ages: number[] = [];
      let keptScore = 0;
      for (const [i, p] of players.entries()) {
        const w = p.welcomes[welcomesBefore[i]!]!;
        expect(w, `round ${round}: player ${i} got another seat`).toMatchObject({ reconnected: true, playerId: ids[i] });
        const restored = p.firstAfterWelcome[welcomesBefore[i]!]!;
        if (!continuesFrom(p, restored, downAt, WINDOW_MS)) lost.push(`player ${ids[i]}: ${JSON.stringify(restored)}, last seen ${JSON.stringify(p.lastSeenBefore(downAt))}`);
        // Against the last state the old server showed the player (it may have sent frames after
        // `downAt`: a stop is not instant): how far back the cell went, and whether its score did.
        const last = p.lastShownBefore(restored)!;
        const shown = shownAs(p, restored);
        if (shown) ages.push(last.at - shown.at);
        jumps.push(Math.hypot(restored.x - last.x, restored.y - last.y));
        // Agar's scores only grow: a restored score below the last one shown is a score lost.
        if (restored.score >= last.score) keptScore++;
      }
      expect(lost.slice(0, 3), `round ${round}: ${lost.length} cells not continuing from a checkpoint`).toEqual([]);
      expect(slowest, `round ${round}: slowest player back ${Math.round(slowest)} ms after the server answered`).toBeLessThan(BACK_WITHIN_MS);
      jumps.sort((a, b) => a - b);
      const median = jumps[Math.floor(jumps.length / 2)]!;
      ages.sort((a, b) => a - b);
      // What the restored world's age was (how long before the kill the players were shown it).
      console.log(
        ages.length === 0
          ? `[drill] round ${round}: every restored cell was just past the last frame its player read`
          : `[drill] round ${round}: ${ages.length} restored cells were shown ${Math.round(ages[Math.floor(ages.length / 2)]!)} ms (median), ${Math.round(ages.at(-1)!)} ms (oldest) before the old server's last frame read`,
      );
      expect(median, `round ${round}: median jump back ${Math.round(median)} units (max ${Math.round(jumps.at(-1)!)})`).toBeLessThanOrEqual(MEDIAN_JUMP_MAX);
      expect(keptScore, `round ${round}: ${keptScore} of ${PLAYERS} kept the score they last saw`).toBeGreaterThanOrEqual(Math.ceil(PLAYERS * KEEP_SCORE_SHARE));

      expect(await until(() => ttt!.x.state?.board !== undefined && ttt!.o.status === "joined" && ttt!.o.state?.board !== undefined, 10_000)).toBe(true);
      expect(ttt.boards()).toEqual([board, board]);
      console.log(
        `[drill] round ${round}${round === 1 ? " (code change)" : ""}: ${PLAYERS} players back in their seats, slowest ${Math.round(slowest)} ms after the server answered; every cell continued from the checkpoint; jump back median ${Math.round(median)} units, p90 ${Math.round(jumps[Math.floor(jumps.length * 0.9)]!)}, max ${Math.round(jumps.at(-1)!)}; ${keptScore}/${PLAYERS} kept their score`,
      );
    }
    // The match goes on: X plays on the restored board.
    ttt.x.sendInput({ cell: 8 });
    expect(await until(() => ttt!.o.state?.board[8] === "X")).toBe(true);
    for (const p of players) expect(p.errors).toEqual([]);
  }, 240_000);
});
