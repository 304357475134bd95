/**
 * The "see it work" step of `npm run dev`: runs against a freshly started local gateway and
 * prints what happened. Extend it with a few bot players once rooms exist; keep it short (a few
 * seconds) and bounded, since it also runs in CI through `scripts/dev.sh --smoke-only`.
 *
 * Usage: tsx scripts/dev-smoke.ts <base http url>   (e.g. http://127.0.0.1:8787)
 * Exit code 0 when everything it tried worked.
 */

/** Inputs of the smoke step. */
export interface SmokeContext {
  /** Base HTTP URL of the gateway, without trailing slash. */
  baseUrl: string;
  /** Base WebSocket URL of the gateway, without trailing slash. */
  wsUrl: string;
  /** Hard deadline for the whole step (epoch ms). */
  deadline: number;
}

const TOTAL_BUDGET_MS = 20_000;

/** Runs the smoke step; throws on the first thing that does not work. */
export async function runSmoke(ctx: SmokeContext): Promise<void> {
  const res = await fetch(`${ctx.baseUrl}/health`, { signal: AbortSignal.timeout(remaining(ctx, 5_000)) });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET /health answered ${res.status}: ${body.slice(0, 200)}`);
  console.log(`smoke: GET /health -> ${res.status} ${body.trim()}`);
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
