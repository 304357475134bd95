/**
 * Refused joins in headless Chromium, against the real gateway under `wrangler dev` with the
 * production config (`wrangler.jsonc`, a `TICKET_SECRET`). A page cannot read the HTTP status of
 * a failed upgrade, so every refusal must reach it as a close code and reason: the SDK (bundled
 * into the page) rejects `whenJoined()` with a `JoinError` naming it, and retries only a
 * throttled join, after its wait.
 */
import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket as WsWebSocket } from "ws";
import { CloseCode, PROTOCOL_VERSION } from "@tikron/protocol";
import { mintRoomTicket } from "../../../packages/cloudflare/src/roomTicket";
import { REPO_ROOT, startWranglerDev, type WranglerDevServer } from "../../gateway/test/harness/wranglerDev";
import { buildWeb } from "../build";
import { ensureChromium, launchChromium, stopBrowserAndServer, type ChromiumHandle } from "./harness/chromium";

const SECRET = "browser-refusals-secret-0123456789";
let server: WranglerDevServer | undefined;
let chrome: ChromiumHandle | undefined;
/** The SDK as a page script: `window.Tikron.connect`. */
let sdkScript = "";
const raw: WsWebSocket[] = [];

beforeAll(async () => {
  const executable = ensureChromium();
  await buildWeb();
  const bundled = await build({
    stdin: { contents: `export { connect, JoinError, jsonDialect } from "@tikron/client";`, resolveDir: `${REPO_ROOT}/apps/web`, loader: "ts" },
    bundle: true,
    format: "iife",
    globalName: "Tikron",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  sdkScript = bundled.outputFiles[0]!.text;
  server = await startWranglerDev({ config: "wrangler.jsonc", vars: { TICKET_SECRET: SECRET } });
  chrome = await launchChromium(executable);
});

afterAll(async () => {
  for (const ws of raw) ws.terminate();
  // Nothing may outlive the suite, on any path.
  expect(await stopBrowserAndServer(chrome, server)).toEqual([]);
});

const ticket = (roomId: string, playerId: string, kind = "agar") => mintRoomTicket({ secret: SECRET, kind, roomId, playerId, ttlSeconds: 300 });

/** A page of the gateway's own origin (allowed to open room sockets) with the SDK loaded; counts its WebSocket attempts. */
async function sdkPage(): Promise<{ page: Page; sockets: string[] }> {
  const page = await chrome!.browser.newPage();
  const sockets: string[] = [];
  page.on("websocket", (ws) => sockets.push(ws.url()));
  await page.goto(`${server!.url}/`);
  await page.addScriptTag({ content: sdkScript });
  return { page, sockets };
}

/** What a join in the page ended with: the JoinError's fields (or `joined`), the time it took, and the first close and retry. */
interface PageJoin {
  joined: boolean;
  ms: number;
  name?: string;
  code?: string;
  closeCode?: number;
  reason?: string;
  status: string;
  closes: { code: number; reason: string; willReconnect: boolean }[];
  retries: { code: number; delayMs: number }[];
}

function joinInPage(page: Page, options: { kind: string; room: string; ticket?: string; json?: boolean }): Promise<PageJoin> {
  return page.evaluate(
    async ({ url, options }) => {
      const T = (window as unknown as { Tikron: typeof import("@tikron/client") }).Tikron;
      // The JSON dialect is the page's own object (it cannot cross into the page): named here.
      const conn = T.connect(url, { ...options, json: options.json ? T.jsonDialect : undefined, reconnect: { baseMs: 50, maxMs: 100, maxAttempts: 20 } });
      const closes: PageJoin["closes"] = [];
      const retries: PageJoin["retries"] = [];
      conn.on("close", (c) => closes.push({ code: c.code, reason: c.reason, willReconnect: c.willReconnect }));
      conn.on("reconnecting", (r) => retries.push({ code: r.code, delayMs: r.delayMs }));
      const t0 = performance.now();
      try {
        await conn.whenJoined();
        const ms = performance.now() - t0;
        conn.close();
        return { joined: true, ms, status: conn.status, closes, retries };
      } catch (e) {
        const ms = performance.now() - t0;
        // Anything retried would show up in the next moment.
        await new Promise((r) => setTimeout(r, 300));
        const err = e as InstanceType<typeof T.JoinError>;
        return { joined: false, ms, name: err.name, code: err.code, closeCode: err.closeCode, reason: err.reason, status: conn.status, closes, retries };
      }
    },
    { url: server!.url, options },
  );
}

describe("refused joins in Chromium (production config)", () => {
  it("a join with no ticket rejects whenJoined within 1 s with unauthorized, and is not retried", async () => {
    const { page, sockets } = await sdkPage();
    const r = await joinInPage(page, { kind: "agar", room: "browser-noticket" });
    expect(r).toMatchObject({ joined: false, name: "JoinError", code: "unauthorized", closeCode: CloseCode.unauthorized, reason: "a room ticket is required (?ticket=)", status: "closed" });
    expect(r.ms).toBeLessThan(1000);
    expect(r.closes).toEqual([{ code: CloseCode.unauthorized, reason: "a room ticket is required (?ticket=)", willReconnect: false }]);
    expect(r.retries).toEqual([]);
    expect(sockets).toHaveLength(1);
    await page.close();
  });

  it("an unknown kind rejects with not_found and a full room with room_full, at once; neither is retried", async () => {
    const { page, sockets } = await sdkPage();
    const unknown = await joinInPage(page, { kind: "chess", room: "r1", ticket: await ticket("r1", "ann", "chess") });
    expect(unknown).toMatchObject({ joined: false, code: "not_found", closeCode: CloseCode.not_found, reason: 'unknown room kind "chess"' });
    expect(unknown.ms).toBeLessThan(1000);

    // ttt-json seats two: two players from Node take the seats, the page is the third.
    const seated = await Promise.all(
      ["x", "o"].map(async (p) => {
        const ws = new WsWebSocket(`${server!.wsUrl}/rooms/ttt-json/browser-full?ticket=${await ticket("browser-full", p, "ttt-json")}`);
        raw.push(ws);
        await new Promise((r) => ws.once("open", r));
        ws.send(JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name: p }));
        await new Promise((r) => ws.once("message", r));
        return ws;
      }),
    );
    const full = await joinInPage(page, { kind: "ttt-json", json: true, room: "browser-full", ticket: await ticket("browser-full", "third", "ttt-json") });
    expect(full).toMatchObject({ joined: false, code: "room_full", closeCode: CloseCode.room_full });
    expect(full.ms).toBeLessThan(1000);
    expect([...unknown.retries, ...full.retries]).toEqual([]);
    expect(sockets).toHaveLength(2);
    for (const ws of seated) ws.close();
    await page.close();
  });

  it("a throttled join reaches the page as join_throttled with a wait, is retried no sooner, and then joins", async () => {
    // One caller may have 8 sockets waiting for their hello: the room refuses the 9th before the
    // upgrade and the Worker closes it with join_throttled; the room's hello timeout (3 s) then
    // frees the caller's places.
    const t = await ticket("browser-busy", "mallory");
    const silent = Array.from({ length: 8 }, () => new WsWebSocket(`${server!.wsUrl}/rooms/agar/browser-busy?ticket=${t}`));
    raw.push(...silent);
    await Promise.all(silent.map((ws) => new Promise((r) => ws.once("open", r))));
    const { page } = await sdkPage();
    const r = await joinInPage(page, { kind: "agar", room: "browser-busy", ticket: t });
    expect(r.joined).toBe(true);
    expect(r.retries.length).toBeGreaterThan(0);
    expect(r.closes[0]).toMatchObject({ code: CloseCode.join_throttled, reason: expect.stringMatching(/^retry in \d+ ms: /), willReconnect: true });
    expect(r.retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    await page.close();
  });
});
