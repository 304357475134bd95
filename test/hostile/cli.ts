/**
 * `npm run hostile [-- --seconds 30 --honest 16]`: the long hostile suite. Starts the production
 * config under `wrangler dev` on loopback (tickets on, so each player is one identity), runs
 * each attack for `--seconds` right after its own baseline phase (no attacker) of the same
 * length, with `--honest` players in the same room,
 * prints a Markdown table of what the honest players saw, and exits 1 if any attack broke the
 * suite's bar (see `verdict`). The short version runs in CI (apps/gateway/test/hostile.integration.test.ts).
 */
import { parseArgs } from "node:util";
import { mintRoomTicket } from "../../packages/cloudflare/src/roomTicket";
import { startWranglerDev } from "../../apps/gateway/test/harness/wranglerDev";
import { freezeWorker } from "../../apps/gateway/test/hardeningWorker";
import { ATTACKS, REPORTED_ONLY } from "./attacks";
import { runPhase, verdict, type PhaseResult } from "./run";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "30" }, honest: { type: "string", default: "16" } } });
const seconds = Math.min(600, Math.max(3, Number(values.seconds) || 30));
const honest = Math.min(19, Math.max(1, Number(values.honest) || 16));
const SECRET = `hostile-${Date.now()}-0123456789abcdef`;

const worker = await freezeWorker("wrangler.jsonc");
const server = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: SECRET } });
let failed = false;
try {
  const urlFor = async (player: string, room: string) =>
    `${server.wsUrl}/rooms/agar/${room}?ticket=${await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: room, playerId: player, ttlSeconds: 3600 })}`;
  const phase = (attack: (typeof ATTACKS)[number] | null) =>
    runPhase({ urlFor, room: `${attack ?? "base"}-${Date.now()}`, attack, durationMs: seconds * 1000, honest });
  const rows: { r: PhaseResult; v: string }[] = [];
  for (const attack of [...ATTACKS, ...REPORTED_ONLY]) {
    const baseline = await phase(null);
    rows.push({ r: baseline, v: "—" });
    const r = await phase(attack);
    const v = verdict(baseline, r);
    const reportedOnly = REPORTED_ONLY.includes(attack);
    if (!reportedOnly) failed ||= !v.ok;
    rows.push({ r, v: v.ok ? "ok" : `${reportedOnly ? "(reported only) " : ""}${v.reasons.join("; ")}` });
  }
  console.log(`\nhostile suite: ${seconds} s per phase, ${honest} honest players, one attacking identity, wrangler dev on loopback\n`);
  console.log("| phase | honest joins | ack p50 ms | ack p99 ms | attacker sockets / frames / HTTP-refused | verdict |");
  console.log("|---|---|---|---|---|---|");
  for (const { r, v } of rows) {
    const a = r.attacker ? `${r.attacker.sockets} / ${r.attacker.frames} / ${r.attacker.httpRefused}` : "—";
    console.log(`| ${r.attack} | ${r.honestJoined}/${r.honestJoins} | ${r.ackP50.toFixed(0)} | ${r.ackP99.toFixed(0)} | ${a} | ${v} |`);
  }
} finally {
  await server.stop();
  worker.remove();
}
process.exit(failed ? 1 : 0);
