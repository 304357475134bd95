/**
 * The hostile suite, short version: each attack by one identity (hello/leave loop, rejected
 * inputs, random bytes, silent sockets, an upgrade flood) against a real `wrangler dev` running
 * the production config (tickets, so every player is one identity), with honest players joining
 * and playing in the same room. Asserts on what the honest players saw against a baseline phase
 * without the attacker run right before it (paired, so both see the same machine). This machine
 * is shared and a p99 of a few hundred samples moves with its load: a pair that misses the bar
 * is run once more, and both attempts are logged. The attacker's client runs in its own thread
 * (test/hostile/attackThread.ts). The long version is `npm run hostile` (test/hostile/cli.ts).
 */
import { mintRoomTicket } from "@tikron/cloudflare/ticket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTACKS, REPORTED_ONLY, type AttackName } from "../../../test/hostile/attacks";
import { runPhase, verdict, type PhaseResult } from "../../../test/hostile/run";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";

const SECRET = "hostile-ticket-secret-0123456789";
const PHASE_MS = 4_000;
const HONEST = 8;
let server: WranglerDevServer | undefined;
let worker: FrozenWorker | undefined;
let baseline: PhaseResult;

const fmt = (r: PhaseResult) =>
  `joins ${r.honestJoined}/${r.honestJoins}, ack p50/p99 ${r.ackP50.toFixed(0)}/${r.ackP99.toFixed(0)} ms, client lag p99 ${r.clientLagP99.toFixed(0)} ms`;
const refusedInRoom = (r: PhaseResult) => Object.values(r.room?.refused ?? {}).reduce((a, b) => a + b, 0);

/** A baseline phase and then the attacked phase, each in a fresh room. */
async function pair(attack: AttackName): Promise<{ base: PhaseResult; hit: PhaseResult }> {
  const base = await runPhase({ urlFor, room: `base-${attack}-${Date.now()}`, attack: null, durationMs: PHASE_MS, honest: HONEST });
  const hit = await runPhase({ urlFor, room: `${attack}-${Date.now()}`, attack, durationMs: PHASE_MS, honest: HONEST });
  console.log(
    `[hostile] ${attack}: ${fmt(hit)} (paired baseline ${fmt(base)}), attacker ${JSON.stringify(hit.attacker)}, refused in the room ${JSON.stringify(hit.room?.refused)}`,
  );
  return { base, hit };
}

const urlFor = async (player: string, room: string) =>
  `${server!.wsUrl}/rooms/agar/${room}?ticket=${await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: room, playerId: player, ttlSeconds: 600 })}`;

beforeAll(async () => {
  worker = await freezeWorker("wrangler.jsonc");
  // "warn": at "info" the dev proxy reports every request to wrangler's node process, local-only
  // work per attacker request that production does not have (see test/hostile/cli.ts).
  server = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: SECRET }, extraArgs: ["--log-level", "warn"] });
  baseline = await runPhase({ urlFor, room: `base-${Date.now()}`, attack: null, durationMs: PHASE_MS, honest: HONEST });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  worker?.remove();
});

describe("hostile traffic next to honest players (short run)", () => {
  it("baseline: every honest player joins and is acked", () => {
    expect(baseline.honestJoined).toBe(HONEST);
    expect(baseline.ackSamples).toBeGreaterThan(HONEST * 20);
  });

  for (const attack of ATTACKS) {
    it(`${attack}: ≥ 99 % of honest joins succeed and honest ack p99 stays within 2× the baseline`, async () => {
      let { base, hit } = await pair(attack);
      if (!verdict(base, hit).ok) ({ base, hit } = await pair(attack));
      expect(hit.attacker!.sockets + hit.attacker!.frames).toBeGreaterThan(0);
      expect(verdict(base, hit)).toEqual({ ok: true, reasons: [] });
    }, 40_000);
  }

  for (const attack of REPORTED_ONLY) {
    it(`${attack}: ≥ 99 % of honest joins succeed and no honest player is dropped (latency reported)`, async () => {
      const { base, hit } = await pair(attack);
      expect(hit.attacker!.refused).toBeGreaterThan(0);
      expect(hit.honestJoined / hit.honestJoins).toBeGreaterThanOrEqual(0.99);
      expect(hit.honestDropped).toBe(0);
      console.log(`[hostile] ${attack} (reported only): ${verdict(base, hit).reasons.join("; ") || "within the bar"}`);
    }, 40_000);
  }

  it("upgrade floods are answered by the gateway: most refused upgrades never reach the room's object", async () => {
    const r = await runPhase({ urlFor, room: `gate-${Date.now()}`, attack: "upgrade_flood", durationMs: PHASE_MS, honest: 2 });
    console.log(`[hostile] upgrade_flood: ${r.attacker!.refused} refused upgrades, ${refusedInRoom(r)} of them by the room ${JSON.stringify(r.room?.refused)}`);
    expect(r.room).not.toBeNull();
    expect(r.attacker!.refused).toBeGreaterThan(50);
    expect(refusedInRoom(r)).toBeLessThan(r.attacker!.refused / 4);
  }, 30_000);
});
