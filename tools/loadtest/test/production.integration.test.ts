/**
 * The load tool against `wrangler dev` running the PRODUCTION config (wrangler.jsonc: DEV_MODE
 * off, join tickets required, no query overrides, agar seats 20): tickets minted from the secret
 * or fetched from an endpoint, and a reconnect storm whose players get their seats back.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintRoomTicket } from "@tikron/cloudflare/ticket";
import { freezeWorker, type FrozenWorker } from "../../../apps/gateway/test/hardeningWorker";
import { startWranglerDev, type WranglerDevServer } from "../../../apps/gateway/test/harness/wranglerDev";
import { evaluateReport } from "../src/report/verdict";
import { runLoad } from "../src/index";

const SECRET = "loadtest-ticket-secret-0123456789";
let server: WranglerDevServer | undefined;
let frozen: FrozenWorker | undefined;
let ticketServer: Server | undefined;
const ticketRequests: unknown[] = [];

beforeAll(async () => {
  frozen = await freezeWorker("wrangler.jsonc");
  server = await startWranglerDev({ config: frozen.configPath, vars: { TICKET_SECRET: SECRET } });
  // The first Durable Object request of a fresh workerd can hang on a loaded machine: warm up.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await runLoad({ url: server.wsUrl, players: 1, rooms: 1, durationSec: 0.3, rampSec: 0, roomStats: false, name: "warmup" }, { tickets: { mode: "secret", secret: SECRET } });
    if (r.summary.clients.joined === 1) break;
    if (Date.now() > deadline) throw new Error(`no room answered a join within 60 s: ${JSON.stringify(r.summary.failureReasons)}`);
  }
  // A game backend's ticket endpoint, as README documents its contract.
  ticketServer = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const q = JSON.parse(body) as { kind: string; roomId: string; playerId: string };
      ticketRequests.push(q);
      void mintRoomTicket({ secret: SECRET, kind: q.kind, roomId: q.roomId, playerId: q.playerId, ttlSeconds: 600 }).then((ticket) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ticket }));
      });
    });
  });
  await new Promise<void>((r) => ticketServer!.listen(0, "127.0.0.1", r));
}, 240_000);

afterAll(async () => {
  await new Promise<void>((r) => (ticketServer ? ticketServer.close(() => r()) : r()));
  await server?.stop();
  frozen?.remove();
});

describe("load tool against the production config", () => {
  it("without tickets every join is refused (unauthorized); DEV_MODE overrides are refused (forbidden)", { timeout: 40_000 }, async () => {
    const none = await runLoad({ url: server!.wsUrl, players: 3, rooms: 1, durationSec: 0.5, rampSec: 0, roomStats: false });
    expect(none.summary.clients).toMatchObject({ planned: 3, joined: 0 });
    expect(none.summary.failureReasons).toEqual({ unauthorized: 3 });
    const override = await runLoad({ url: server!.wsUrl, players: 2, rooms: 1, durationSec: 0.5, rampSec: 0, roomStats: false, query: "cap=100" }, { tickets: { mode: "secret", secret: SECRET } });
    expect(override.summary.failureReasons).toEqual({ forbidden: 2 });
  });

  it("tickets minted from the secret seat every player; a 50% drop gets every dropped player back in its seat", { timeout: 40_000 }, async () => {
    const r = await runLoad(
      { url: server!.wsUrl, players: 16, rooms: 1, durationSec: 5, rampSec: 1.5, drops: [{ pct: 50, atSec: 3 }], statsEverySec: 2, thresholds: ["reconnect.reconnected_pct==100", "unexpected_closes==0"], name: "it-prod-drop" },
      { tickets: { mode: "secret", secret: SECRET } },
    );
    const s = r.summary;
    expect(r.config.tickets).toEqual({ mode: "secret" });
    expect(JSON.stringify(r)).not.toContain(SECRET);
    expect(s.clients).toMatchObject({ planned: 16, joined: 16, failed: 0 });
    const c = r.total.counters;
    expect(c.dropped).toBe(8);
    // The welcome after the drop said reconnected: true for every dropped player.
    expect(c.reconnected).toBe(8);
    expect(c.reconnectNewSeat).toBe(0);
    expect(c.reconnectFailed).toBe(0);
    expect(s.reconnectMs!.count).toBe(8);
    expect(s.reconnectMs!.p50).toBeGreaterThan(0);
    expect(s.reconnectMs!.max).toBeLessThan(5_000);
    expect(s.unexpectedCloses).toBe(0);
    // The live series saw the drop and the recovery.
    const after = r.series!.samples.filter((x) => x.tSec >= 4);
    expect(after.some((x) => x.dropped === 8 && x.reconnected === 8 && x.players === 16)).toBe(true);
    // tk:stats was sampled during the run, not only at the end.
    expect(r.series!.roomStats.filter((x) => x.tSec < r.config.durationSec + r.config.rampSec).length).toBeGreaterThanOrEqual(1);
    expect(evaluateReport("run", r.config.thresholds, r).passed).toBe(r.status === "ok");
  });

  it("tickets fetched from --ticket-url (POST {kind, roomId, playerId} -> {ticket}) seat every player", { timeout: 40_000 }, async () => {
    const url = `http://127.0.0.1:${(ticketServer!.address() as AddressInfo).port}/tickets`;
    ticketRequests.length = 0;
    const r = await runLoad({ url: server!.wsUrl, scenario: "fps", players: 6, rooms: 1, durationSec: 2, rampSec: 0.5, name: "it-prod-url" }, { tickets: { mode: "url", url } });
    expect(r.config.tickets).toEqual({ mode: "url", url });
    expect(r.summary.clients).toMatchObject({ planned: 6, joined: 6 });
    expect(ticketRequests).toHaveLength(6);
    expect(ticketRequests[0]).toMatchObject({ kind: "fps", roomId: `${r.config.roomPrefix}-0`, playerId: expect.stringMatching(/^lt-/) });
    expect(r.summary.inputs.acked).toBeGreaterThan(0);
  });
});
