/**
 * `npm run hostile [-- --seconds 30 --honest 16]`: the long hostile suite. Starts the production
 * config under `wrangler dev` on loopback (tickets on, so each player is one identity), runs
 * each attack for `--seconds` right after its own baseline phase (no attacker) of the same
 * length, with `--honest` players in the same room,
 * prints a Markdown table of what the honest players saw, and exits 1 if any attack broke the
 * suite's bar (see `verdict`). The short version runs in CI (apps/gateway/test/hostile.integration.test.ts).
 * Two measurements of issue 36 share the entry: `npm run hostile -- refusals` (refusals.ts) and
 * `npm run hostile -- bodies` (bodyFlood.ts).
 */
import { parseArgs } from "node:util";
import { measureRefusals } from "./refusals";
import { measureBodies } from "./bodyFlood";
import { mintRoomTicket } from "../../packages/cloudflare/src/roomTicket";
import { startWranglerDev } from "../../apps/gateway/test/harness/wranglerDev";
import { freezeWorker } from "../../apps/gateway/test/hardeningWorker";
import { ATTACKS, REPORTED_ONLY } from "./attacks";
import { phaseCpu, profileWorker, type ProfileSummary } from "./probe";
import { runPhase, verdict, type PhaseResult } from "./run";

// `npm run hostile -- refusals …`: what refused upgrades cost the runtime (refusals.ts);
// `npm run hostile -- bodies …`: what big and endless bodies cost it (bodyFlood.ts).
if (process.argv[2] === "refusals") process.exit((await measureRefusals(process.argv.slice(3))) ? 0 : 1);
if (process.argv[2] === "bodies") process.exit((await measureBodies(process.argv.slice(3))) ? 0 : 1);

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    honest: { type: "string", default: "16" },
    // A subset of attacks, comma-separated (default: all).
    attacks: { type: "string" },
    // Where the attacker's client runs: "thread" (default) or "same_loop" (the honest players' event loop).
    attacker: { type: "string", default: "thread" },
    // CPU-profile the Worker's isolate during each attacked phase (inspector port).
    profile: { type: "boolean", default: false },
    // wrangler dev's log level. At "info" the dev proxy reports every request to wrangler's node
    // process, which prints it: local-only work per attacker request (measured: wrangler's node
    // 10 % of a core and the proxy 19 % under upgrade_flood, against 1 % and 14 % at "warn").
    "log-level": { type: "string", default: "warn" },
  },
});
const seconds = Math.min(600, Math.max(3, Number(values.seconds) || 30));
const honest = Math.min(19, Math.max(1, Number(values.honest) || 16));
const ALL = [...ATTACKS, ...REPORTED_ONLY];
const chosen = values.attacks ? ALL.filter((a) => values.attacks!.split(",").includes(a)) : ALL;
const attackerIn = values.attacker === "same_loop" ? "same_loop" : "thread";
const SECRET = `hostile-${Date.now()}-0123456789abcdef`;

const worker = await freezeWorker("wrangler.jsonc");
const server = await startWranglerDev({
  config: worker.configPath,
  vars: { TICKET_SECRET: SECRET },
  extraArgs: ["--log-level", values["log-level"]!],
});
let failed = false;
try {
  const urlFor = async (player: string, room: string) =>
    `${server.wsUrl}/rooms/agar/${room}?ticket=${await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: room, playerId: player, ttlSeconds: 3600 })}`;
  const phase = async (attack: (typeof ATTACKS)[number] | null) => {
    const cpu = phaseCpu(server.pid);
    const profiled: Promise<ProfileSummary | null> =
      values.profile && attack
        ? new Promise((r) => setTimeout(r, 1_000)).then(() => profileWorker(server.inspectorPort, seconds * 1000 - 2_000).catch(() => null))
        : Promise.resolve(null);
    const r = await runPhase({ urlFor, room: `${attack ?? "base"}-${Date.now()}`, attack, durationMs: seconds * 1000, honest, attackerIn });
    const cpuPct = cpu.stop();
    const profile = await profiled;
    console.log(`[hostile] ${r.attack}: p50/p99 ${r.ackP50.toFixed(0)}/${r.ackP99.toFixed(0)} ms; CPU % of a core ${JSON.stringify(cpuPct)}; room ${JSON.stringify(r.room)}`);
    if (profile) console.log(`[hostile] ${r.attack} worker profile: idle ${profile.idlePct} % of ${profile.samples} samples; ${profile.top.map((t) => `${t.name} ${t.pct}`).join(", ")}`);
    return r;
  };
  const rows: { r: PhaseResult; v: string }[] = [];
  for (const attack of chosen) {
    const baseline = await phase(null);
    rows.push({ r: baseline, v: "—" });
    const r = await phase(attack);
    const v = verdict(baseline, r);
    const reportedOnly = REPORTED_ONLY.includes(attack);
    if (!reportedOnly) failed ||= !v.ok;
    rows.push({ r, v: v.ok ? "ok" : `${reportedOnly ? "(reported only) " : ""}${v.reasons.join("; ")}` });
  }
  console.log(
    `\nhostile suite: ${seconds} s per phase, ${honest} honest players, one attacking identity (client in ${attackerIn === "thread" ? "its own thread" : "the honest players' event loop"}), wrangler dev on loopback\n`,
  );
  console.log("| phase | honest joins | ack p50 ms | ack p99 ms | client lag p99 ms | attacker sockets / frames / refused | refused in the room | verdict |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const { r, v } of rows) {
    const a = r.attacker ? `${r.attacker.sockets} / ${r.attacker.frames} / ${r.attacker.refused}` : "—";
    const inRoom = r.room ? Object.values(r.room.refused).reduce((x, y) => x + y, 0) : "?";
    console.log(`| ${r.attack} | ${r.honestJoined}/${r.honestJoins} | ${r.ackP50.toFixed(0)} | ${r.ackP99.toFixed(0)} | ${r.clientLagP99.toFixed(0)} | ${a} | ${inRoom} | ${v} |`);
  }
  if (process.env.HOSTILE_JSON) console.log(JSON.stringify(rows.map(({ r }) => r)));
} finally {
  await server.stop();
  worker.remove();
}
process.exit(failed ? 1 : 0);
