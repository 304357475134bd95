/**
 * The "see it work" step of `npm run dev`: against the freshly started local gateway, checks
 * `/health`, then runs eight bot players in an `agar` room for a few seconds through the load
 * tool and prints what they experienced and what the room measured about itself (`tk:stats`).
 * Bounded (well under 30 s), since it also runs in CI through `scripts/dev.sh --smoke-only`.
 *
 * Usage: tsx scripts/dev-smoke.ts <base http url>   (e.g. http://127.0.0.1:8787)
 * Exit code 0 when everything it tried worked.
 */
import { formatSummary, runLoad } from "../tools/loadtest/src/index";
import { explainSmoke } from "./lib/smokeVerdict";

/** Inputs of the smoke step. */
export interface SmokeContext {
  /** Base HTTP URL of the gateway, without trailing slash. */
  baseUrl: string;
  /** Base WebSocket URL of the gateway, without trailing slash. */
  wsUrl: string;
  /** Hard deadline for the whole step (epoch ms). */
  deadline: number;
}

const TOTAL_BUDGET_MS = 25_000;
const BOTS = 8;

/** Runs the smoke step; throws on the first thing that does not work. */
export async function runSmoke(ctx: SmokeContext): Promise<void> {
  const res = await fetch(`${ctx.baseUrl}/health`, { signal: AbortSignal.timeout(remaining(ctx, 5_000)) });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET /health answered ${res.status}: ${body.slice(0, 200)}`);
  console.log(`smoke: GET /health -> ${res.status} ${body.trim()}`);

  const roomPrefix = `bots-${Date.now().toString(36)}`;
  console.log(`smoke: ${BOTS} bot players steer in agar room ${roomPrefix}-0 for 5 s ...`);
  const report = await runLoad({
    url: ctx.wsUrl,
    scenario: "agar",
    players: BOTS,
    rooms: 1,
    rampSec: 1,
    durationSec: 5,
    roomPrefix,
    name: "dev-smoke",
  });
  console.log(formatSummary(report));
  for (const line of explainSmoke(report, BOTS)) console.log(line);
  const s = report.summary;
  if (s.clients.joined !== BOTS) throw new Error(`${s.clients.joined}/${BOTS} bots joined`);
  if (s.unexpectedCloses > 0) throw new Error(`${s.unexpectedCloses} unexpected closes`);
  if (s.inputs.acked === 0) throw new Error("no input was acknowledged");
  if (s.roomStats.fetched === 0) throw new Error("the room did not answer tk:stats");
}

function remaining(ctx: SmokeContext, cap: number): number {
  return Math.max(1, Math.min(cap, ctx.deadline - Date.now()));
}

const baseUrl = (process.argv[2] ?? process.env.TIKRON_DEV_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
const ctx: SmokeContext = { baseUrl, wsUrl: baseUrl.replace(/^http/, "ws"), deadline: Date.now() + TOTAL_BUDGET_MS };
// Never let a stuck socket hold `npm run dev` (or CI) hostage.
const watchdog = setTimeout(() => {
  console.error(`smoke: gave up after ${TOTAL_BUDGET_MS} ms`);
  process.exit(1);
}, TOTAL_BUDGET_MS + 1_000);
watchdog.unref();

runSmoke(ctx).then(
  () => {
    console.log("smoke: ok");
    process.exit(0);
  },
  (err: unknown) => {
    console.error(`smoke: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
