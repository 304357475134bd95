/**
 * What big and endless bodies cost the runtime:
 * `npm run hostile -- bodies [--parallel 4 --mib 64 --via-dev-proxy --local-observability]`.
 *
 * Starts the production config under `wrangler dev` (tickets and an admin token), then sends, to
 * every route that takes a body (`POST /match/<kind>`, `POST /match/<kind>/queue`, a party's
 * make, join and start, an admin action), `--parallel` bodies at once that declare `--mib` MiB and as many that declare no length
 * and never end, each with a valid credential (so nothing but the body can refuse it), and last
 * the same from a caller its matchmaker has rate-limited. Prints how each was answered, how much
 * of it was written before the answer, and the worker workerd's resident memory before and after;
 * exits 1 when a bar of issue 36 is missed (every body refused 413 — 429 for the rate-limited
 * caller — before it was read, memory growth < 10 MB).
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { ANY_ROOM } from "../../packages/core/src/ticket";
import { mintRoomTicket } from "../../packages/cloudflare/src/roomTicket";
import { startWranglerDev } from "../../apps/gateway/test/harness/wranglerDev";
import { freezeWorker } from "../../apps/gateway/test/hardeningWorker";
import { workerEntryUrl } from "../../tools/loadtest/src/server/workerEntry";
import { takeSample } from "../../tools/loadtest/src/server/serverCpu";
import { refusedUnread, sendBody, type BodyProbe } from "./bodies";
import { workerRssMiB } from "./refusals";

const TOKEN = "hostile-bodies-admin-token-0123456789";

/** Runs the measurement (see the module comment); resolves with whether every bar held. */
export async function measureBodies(argv: string[]): Promise<boolean> {
  const { values } = parseArgs({
    args: argv,
    options: {
      parallel: { type: "string", default: "4" },
      mib: { type: "string", default: "64" },
      "via-dev-proxy": { type: "boolean", default: false },
      // wrangler dev's own trace collector (X_LOCAL_OBSERVABILITY, on by default): every request's
      // trace written to a SQLite object, fsync included, in the worker's process. No such work
      // runs deployed; off unless asked for, as the dev proxy is skipped unless asked for.
      "local-observability": { type: "boolean", default: false },
    },
  });
  const parallel = Math.min(16, Math.max(1, Number(values.parallel) || 4));
  const bytes = Math.min(256, Math.max(1, Number(values.mib) || 64)) * 1024 * 1024;
  const secret = `bodies-${Date.now()}-0123456789abcdef`;
  const load = os.loadavg()[0]!.toFixed(2);
  const worker = await freezeWorker("wrangler.jsonc");
  const server = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: secret, ADMIN_TOKEN: TOKEN }, extraArgs: ["--log-level", "warn"], env: values["local-observability"] ? {} : { X_LOCAL_OBSERVABILITY: "false" } });
  try {
    const base = values["via-dev-proxy"] ? server.url : ((await workerEntryUrl(server.pid)) ?? server.wsUrl).replace(/^ws/, "http");
    const matchTicket = (player: string) => mintRoomTicket({ secret, kind: "agar", roomId: ANY_ROOM, playerId: player, ttlSeconds: 3600 });
    // An admin action's body is read (bounded) after the credential and before its room is asked,
    // so the room need not exist for the body to be what is refused.
    const routes: [string, () => Promise<Record<string, string>>][] = [
      [`${base}/match/agar`, async () => ({ authorization: `Bearer ${await matchTicket(`p-${Math.random()}`)}` })],
      [`${base}/match/agar/queue`, async () => ({ authorization: `Bearer ${await matchTicket(`p-${Math.random()}`)}` })],
      // A party's body is read (bounded, to its own smaller limit) before its code is looked up.
      [`${base}/match/agar/party`, async () => ({ authorization: `Bearer ${await matchTicket(`p-${Math.random()}`)}` })],
      [`${base}/match/agar/party/ABCDE12345`, async () => ({ authorization: `Bearer ${await matchTicket(`p-${Math.random()}`)}` })],
      [`${base}/match/agar/party/ABCDE12345/start?member=${"m".repeat(22)}`, async () => ({ authorization: `Bearer ${await matchTicket(`p-${Math.random()}`)}` })],
      [`${base}/admin/api/rooms/agar/bodies/notice`, async () => ({ authorization: `Bearer ${TOKEN}` })],
    ];
    // A caller its matchmaker has rate-limited (sent last: told to wait before its next body is read).
    const hasty = { authorization: `Bearer ${await matchTicket("hasty")}` };
    // Warm up first, so what the memory reading sees is the bodies: every route once with a small
    // body (the matchmaker's object made, the code compiled), and the hasty caller's wait earned.
    for (const [url, auth] of routes) await (await fetch(url, { method: "POST", headers: await auth(), body: '{"mode":"join","rating":1,"queueId":"warm","text":"warm"}' })).arrayBuffer();
    const earnWait = async () => {
      for (let i = 0; i < 40; i++) {
        const r = await fetch(`${base}/match/agar`, { method: "POST", headers: hasty, body: '{"mode":"join"}' });
        await r.arrayBuffer();
        if (r.status === 429) return;
      }
    };
    await earnWait();
    await new Promise((r) => setTimeout(r, 1_000));
    const rss0 = workerRssMiB(takeSample(server.pid));
    const rows: { route: string; kind: string; p: BodyProbe; want: number }[] = [];
    for (const [url, auth] of routes) {
      const declared = await Promise.all(Array.from({ length: parallel }, async () => sendBody(url, { headers: await auth(), declared: bytes, timeoutMs: 60_000 })));
      for (const p of declared) rows.push({ route: url.slice(base.length), kind: `declared ${bytes >> 20} MiB`, p, want: 413 });
      const endless = await Promise.all(Array.from({ length: parallel }, async () => sendBody(url, { headers: await auth(), total: bytes, timeoutMs: 60_000 })));
      for (const p of endless) rows.push({ route: url.slice(base.length), kind: "no length, endless", p, want: 413 });
    }
    // The matchmaker's wait is short (its bucket refills in a fraction of a second): earned again right before.
    await earnWait();
    const limited = await Promise.all(Array.from({ length: parallel }, () => sendBody(`${base}/match/agar`, { headers: hasty, total: bytes, timeoutMs: 60_000 })));
    for (const p of limited) rows.push({ route: "/match/agar", kind: "rate-limited caller, endless", p, want: 429 });
    await new Promise((r) => setTimeout(r, 2_000));
    const rss1 = workerRssMiB(takeSample(server.pid));

    console.log(`\nbodies: ${parallel} at once per route and kind, ${values["via-dev-proxy"] ? "through the dev proxy" : "straight to the worker's entry"}; machine load (1 min) ${load} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end\n`);
    console.log("| route | body | answers | written before the answer (max) | answer time max ms |");
    console.log("|---|---|---|---|---|");
    const groups = new Map<string, typeof rows>();
    for (const r of rows) groups.set(`${r.route} | ${r.kind}`, [...(groups.get(`${r.route} | ${r.kind}`) ?? []), r]);
    for (const [key, g] of groups) {
      const answers = g.map((r) => (r.p.reset ? "reset while sending" : `${r.p.status}${r.p.code ? ` ${r.p.code}` : ""}`));
      const written = Math.max(...g.map((r) => r.p.written));
      console.log(`| ${key} | ${[...new Set(answers)].map((a) => `${answers.filter((x) => x === a).length}× ${a}`).join(", ")} | ${(written / 1024 / 1024).toFixed(1)} MiB | ${Math.max(...g.map((r) => r.p.ms)).toFixed(0)} |`);
    }
    const growth = rss0 !== null && rss1 !== null ? rss1 - rss0 : NaN;
    // The bar is 10 MB (10^6 bytes): 9.54 MiB.
    const growthMB = (growth * 1024 * 1024) / 1e6;
    console.log(`\nworker RSS ${rss0} → ${rss1} MiB (growth ${growth.toFixed(1)} MiB = ${growthMB.toFixed(1)} MB)`);
    const bars: [string, boolean][] = [
      // A refusal the client did not get to read (the connection reset while it was still sending,
      // which can drop the answer) is still a body refused before it was read.
      [`every body refused with its status, or reset while still sending (${rows.filter((r) => r.p.status === r.want).length} answered, ${rows.filter((r) => r.p.reset).length} reset, of ${rows.length})`, rows.every((r) => refusedUnread(r.p, r.want, bytes))],
      [`none read before the answer (largest written ${(Math.max(...rows.map((r) => r.p.written)) / 1024 / 1024).toFixed(1)} MiB of ${bytes >> 20})`, rows.every((r) => r.p.written < bytes)],
      [`worker memory growth ${growthMB.toFixed(1)} MB < 10 MB`, growthMB < 10],
    ];
    for (const [what, ok] of bars) console.log(`${ok ? "ok  " : "MISS"} ${what}`);
    return bars.every(([, ok]) => ok);
  } finally {
    await server.stop();
    worker.remove();
  }
}
