/**
 * What refused upgrades cost the runtime, next to honest ticketed players:
 * `npm run hostile -- refusals [--count 2000 --seconds 10 --honest 5 --newcomers 5 --credential none]`
 * (`--via-dev-proxy`: through wrangler's dev proxy; `--local-observability`: with wrangler's local
 * trace collector on; both dev-only work a deployed Worker does not do, off by default).
 *
 * Starts the production config under `wrangler dev` (tickets required), seats `--honest` ticketed
 * agar players who steer at 20 inputs/s, and runs three phases of `--seconds` each: before, during
 * (a bounded loop of `--count` upgrades that all must be refused — `--credential none`: no
 * credential; `forged`: a ticket signed with another secret, a different one each time; `wrong-room`:
 * a good ticket for another room; `unknown-kind`: a good ticket to a kind the gateway does not host
 * — while `--newcomers` ticketed players join one by one and play) and after. Prints the runtime's
 * CPU-seconds during the flood (the workerd that runs the Worker and every object; the dev proxy
 * apart), how every upgrade was answered, and the honest players' ack p99 in each phase; exits 1
 * when a bar of issue 36 is missed (≤ 1 CPU-second for the flood, every upgrade refused, ack p99
 * during ≤ 2× before, every newcomer joined). Figures from a shared machine are noise: say so.
 */
import { readFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import os from "node:os";
import { parseArgs } from "node:util";
import { CloseCode } from "@tikron/protocol";
import { mintRoomTicket } from "../../packages/cloudflare/src/roomTicket";
import { startWranglerDev } from "../../apps/gateway/test/harness/wranglerDev";
import { freezeWorker } from "../../apps/gateway/test/hardeningWorker";
import { workerEntryUrl } from "../../tools/loadtest/src/server/workerEntry";
import { clockTicksPerSec } from "../../tools/loadtest/src/server/procStat";
import { takeSample, ticksBetween, type CpuSample } from "../../tools/loadtest/src/server/serverCpu";
import { refusedCount, upgradeFloodInThread } from "./flood";
import { HonestPlayer } from "./honest";
import { quantile } from "./run";

/** CPU-seconds each `wrangler dev` role used between two samples ("worker": the Worker and every object). */
export function cpuSecondsByRole(start: CpuSample, end: CpuSample): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of end.procs) {
    const role = p.role === "other" ? p.comm : p.role;
    const { ticks } = ticksBetween(start, end, (c) => c === p.comm, p.pid);
    out[role] = Math.round(((out[role] ?? 0) + ticks / clockTicksPerSec()) * 100) / 100;
  }
  return out;
}

/** The resident memory of the worker workerd (MiB), from /proc; null when unknown. */
export function workerRssMiB(sample: CpuSample): number | null {
  const worker = sample.procs.find((p) => p.role === "worker");
  if (!worker) return null;
  try {
    const status = readFileSync(`/proc/${worker.pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 102.4) / 10 : null;
  } catch {
    return null;
  }
}

const CREDENTIALS = ["none", "forged", "wrong-room", "unknown-kind"] as const;
type FloodCredential = (typeof CREDENTIALS)[number];

/** Runs the measurement (see the module comment); resolves with whether every bar held. */
export async function measureRefusals(argv: string[]): Promise<boolean> {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: "string", default: "2000" },
      seconds: { type: "string", default: "10" },
      honest: { type: "string", default: "5" },
      newcomers: { type: "string", default: "5" },
      credential: { type: "string", default: "none" },
      "via-dev-proxy": { type: "boolean", default: false },
      concurrency: { type: "string", default: "128" },
      // wrangler dev's own trace collector (X_LOCAL_OBSERVABILITY, on by default): every request's
      // trace written to a SQLite object, fsync included, in the worker's process. No such work
      // runs deployed; off unless asked for, as the dev proxy is skipped unless asked for.
      "local-observability": { type: "boolean", default: false },
      // Also measure what as many plain requests (GET /health, each on its own connection, at the
      // same pace) cost the runtime: the floor any request pays, next to which a refusal is judged.
      floor: { type: "boolean", default: false },
    },
  });
  const count = Math.min(20_000, Math.max(1, Number(values.count) || 2000));
  const seconds = Math.min(120, Math.max(2, Number(values.seconds) || 10));
  const honest = Math.min(32, Math.max(1, Number(values.honest) || 5));
  const asked = Number(values.newcomers);
  const newcomers = Math.min(32, Math.max(0, Number.isFinite(asked) ? asked : 5));
  const credential = (CREDENTIALS as readonly string[]).includes(values.credential!) ? (values.credential as FloodCredential) : "none";
  const secret = `refusals-${Date.now()}-0123456789abcdef`;
  const load = os.loadavg()[0]!.toFixed(2);

  const worker = await freezeWorker("wrangler.jsonc");
  const server = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: secret }, extraArgs: ["--log-level", "warn"], env: values["local-observability"] ? {} : { X_LOCAL_OBSERVABILITY: "false" } });
  try {
    const base = values["via-dev-proxy"] ? server.wsUrl : ((await workerEntryUrl(server.pid)) ?? server.wsUrl);
    const room = `refusals-${Date.now()}`;
    const ticket = (player: string, roomId = room, s = secret) => mintRoomTicket({ secret: s, kind: "agar", roomId, playerId: player, ttlSeconds: 3600 });
    const join = async (player: string) => new HonestPlayer(`${base}/rooms/agar/${room}?ticket=${await ticket(player)}`, player);

    const seated: HonestPlayer[] = [];
    for (let i = 0; i < honest; i++) {
      const p = await join(`honest-${i}`);
      if ((await p.join(10_000)) !== "joined") throw new Error(`honest player ${i} could not join: ${p.outcome} ${p.closeCode}`);
      p.steer();
      seated.push(p);
    }
    const urls: string[] = [];
    const good = await ticket("mallory", `${room}-other`);
    for (let i = 0; i < count; i++) {
      if (credential === "none") urls.push(`${base}/rooms/agar/${room}`);
      else if (credential === "forged") urls.push(`${base}/rooms/agar/${room}?ticket=${await ticket(`mallory-${i}`, room, "not-the-gateway-secret-0123")}`);
      else if (credential === "wrong-room") urls.push(`${base}/rooms/agar/${room}?ticket=${good}`);
      else urls.push(`${base}/rooms/nope/${room}?ticket=${good}`);
    }
    const expectedClose = credential === "unknown-kind" ? CloseCode.not_found : CloseCode.unauthorized;

    let floor: number | null = null;
    if (values.floor) {
      const healthUrl = `${base.replace(/^ws/, "http")}/health`;
      const f0 = takeSample(server.pid);
      const gap = (seconds * 1000) / count;
      const t0 = performance.now();
      const pending: Promise<unknown>[] = [];
      for (let i = 0; i < count; i++) {
        const wait = t0 + i * gap - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        pending.push(
          new Promise((done) => {
            const req = httpGet(healthUrl, { agent: false }, (res) => res.resume().on("end", done).on("error", done));
            req.on("error", done);
          }),
        );
      }
      await Promise.all(pending);
      floor = cpuSecondsByRole(f0, takeSample(server.pid)).worker ?? null;
    }
    const mark = () => seated.map((p) => p.ackMs.length);
    const acksSince = (from: number[], players = seated) => players.flatMap((p, i) => p.ackMs.slice(from[i] ?? 0));
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    await sleep(2_000); // settle after the joins
    const m0 = mark();
    const base0 = takeSample(server.pid);
    await sleep(seconds * 1000);
    const base1 = takeSample(server.pid);
    const before = acksSince(m0);
    // The room's own cost per second (its players, its ticks), to tell the flood's cost from it.
    const roomPerSec = (cpuSecondsByRole(base0, base1).worker ?? 0) / ((base1.atMs - base0.atMs) / 1000);

    const m1 = mark();
    const cpu0 = takeSample(server.pid);
    const rss0 = workerRssMiB(cpu0);
    const flood = upgradeFloodInThread({ urls, durationMs: seconds * 1000, concurrency: Number(values.concurrency) || 128 });
    const arrived: HonestPlayer[] = [];
    for (let i = 0; i < newcomers; i++) {
      await sleep((seconds * 1000) / (newcomers + 1));
      const p = await join(`newcomer-${i}`);
      arrived.push(p);
      void p.join(10_000).then((o) => o === "joined" && p.steer());
    }
    const tally = await flood;
    const cpu1 = takeSample(server.pid);
    const rss1 = workerRssMiB(cpu1);
    const during = acksSince(m1);
    await sleep(500);

    const m2 = mark();
    await sleep(seconds * 1000);
    const after = acksSince(m2);
    const rss2 = workerRssMiB(takeSample(server.pid));
    const stats = await seated[0]!.roomStats();
    const dropped = seated.filter((p) => p.closeCode !== 0).length;
    for (const p of [...seated, ...arrived]) p.leave();
    await sleep(300);

    const cpuS = cpuSecondsByRole(cpu0, cpu1);
    // The flood's own: the worker's CPU over the flood less what the room used at its before-phase rate.
    const floodCpu = Math.round(((cpuS.worker ?? NaN) - roomPerSec * ((cpu1.atMs - cpu0.atMs) / 1000)) * 100) / 100;
    const refused = refusedCount(tally, [expectedClose]);
    const p99 = (a: number[]) => quantile(a, 0.99);
    const joined = arrived.filter((p) => p.outcome === "joined").length;
    console.log(`\nrefused upgrades: ${count} × credential "${credential}" over ${seconds} s ${values["via-dev-proxy"] ? "through the dev proxy" : "straight to the worker's entry"}, wrangler's local trace collector ${values["local-observability"] ? "on" : "off"}; machine load (1 min) ${load} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end, ${os.cpus().length} cores\n`);
    console.log("| phase | honest ack p50 ms | ack p99 ms | acks |");
    console.log("|---|---|---|---|");
    for (const [name, a] of [["before", before], ["during", during], ["after", after]] as const) console.log(`| ${name} | ${quantile(a, 0.5).toFixed(0)} | ${p99(a).toFixed(0)} | ${a.length} |`);
    console.log(`\nflood: sent ${tally.sent}, closes ${JSON.stringify(tally.closes)}, HTTP ${JSON.stringify(tally.statuses)}, admitted ${tally.admitted}, failed ${tally.failed}, answer p50/p99 ${tally.answerP50.toFixed(0)}/${tally.answerP99.toFixed(0)} ms, wall ${(tally.wallMs / 1000).toFixed(1)} s`);
    console.log(`runtime CPU-seconds during the flood: ${JSON.stringify(cpuS)}; the room alone used ${roomPerSec.toFixed(2)} CPU-s per second before it, so the flood's own: ${floodCpu} CPU-s (${((floodCpu * 1000) / count).toFixed(2)} ms per refused upgrade); worker RSS ${rss0} → ${rss1} MiB (${rss2} MiB after the last phase)`);
    if (floor !== null) console.log(`the floor: ${count} plain GET /health at the same pace cost the worker ${floor} CPU-s (${((floor * 1000) / count).toFixed(2)} ms each, the room's own time included)`);
    console.log(`newcomers joined ${joined}/${newcomers}; seated players dropped ${dropped}; room refused ${JSON.stringify(stats?.refused ?? null)}`);

    const bars: [string, boolean][] = [
      [`worker CPU for the flood's ${count} refused upgrades ${floodCpu} CPU-s ≤ ${((count / 2000) * 1).toFixed(2)} CPU-s (1 CPU-s per 2,000)`, floodCpu <= count / 2000],
      [`every upgrade refused (${refused}/${count})`, refused === count],
      // The before-phase p99 is floored at 50 ms (one 20 Hz tick's spacing) so that a quiet room's
      // few-ms p99 does not make the bar a sub-tick one.
      [`ack p99 during ${p99(during).toFixed(1)} ms ≤ 2 × before p99 ${p99(before).toFixed(1)} ms (floored at 50 ms: bar ${(2 * Math.max(50, p99(before))).toFixed(1)} ms)`, p99(during) <= 2 * Math.max(50, p99(before))],
      [`every newcomer joined (${joined}/${newcomers})`, joined === newcomers],
      [`no seated player dropped (${dropped})`, dropped === 0],
    ];
    for (const [what, ok] of bars) console.log(`${ok ? "ok  " : "MISS"} ${what}`);
    return bars.every(([, ok]) => ok);
  } finally {
    await server.stop();
    worker.remove();
  }
}
