/**
 * The demo page end to end: the real gateway under `wrangler dev` (staging config) serves the
 * built page, headless Chromium plays it, and a second client (the SDK in Node) watches the
 * same room. Checks that the page joins, that keys move its cell for everybody, that its
 * prediction settles on the server's position, and saves a screenshot as a test artifact.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { connect, schemaDecoder, type RoomConnection, type WebSocketConstructor } from "@tikron/client";
import { agarSchema, fpsSchema } from "@tikron/games/schemas";
import type { ClientView, Schema, SchemaDecl } from "@tikron/protocol";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket as WsWebSocket } from "ws";
import { REPO_ROOT, startWranglerDev, type WranglerDevServer } from "../../gateway/test/harness/wranglerDev";
import { buildWeb } from "../build";
import type {} from "../src/debugHandle";
import { withQuery } from "../src/roomOverrides";
import { ensureChromium, launchChromium, stopBrowserAndServer, type ChromiumHandle } from "./harness/chromium";
import { waitFor } from "./harness/waitFor";

const ARTIFACTS = join(REPO_ROOT, "test-artifacts");
/** A small arena seen whole by everyone, so the watcher sees the page's cell wherever it spawns. */
const WORLD = 800;
const OVERRIDES = new URLSearchParams({ world: String(WORLD), aoi: "3000" });
const VIEWPORT = { width: 1100, height: 700 };
/** Colour the page fills its own cell with (renderAgar's OWN_FILL). */
const OWN_FILL = [0x2e, 0xe6, 0xa8];

let server: WranglerDevServer | undefined;
let chrome: ChromiumHandle | undefined;
let hostedKinds: string[] = [];
const watchers: RoomConnection<unknown>[] = [];

beforeAll(async () => {
  const executable = ensureChromium();
  await buildWeb();
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
  const health = (await (await fetch(`${server.url}/health`)).json()) as { kinds?: string[] };
  hostedKinds = health.kinds ?? [];
  chrome = await launchChromium(executable);
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  for (const w of watchers) w.close();
  // Nothing may outlive the suite, on any path.
  expect(await stopBrowserAndServer(chrome, server)).toEqual([]);
});

/** Opens the page (query: game, room, name, ...) and collects its errors. */
async function openPage(query: Record<string, string>, overrides = OVERRIDES, viewport = VIEWPORT): Promise<{ page: Page; errors: string[] }> {
  const page = await chrome!.browser.newPage({ viewport });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  const q = new URLSearchParams({ ...query, ...Object.fromEntries(overrides) });
  await page.goto(`${server!.url}/play?${q}`);
  return { page, errors };
}

async function waitJoined(page: Page): Promise<void> {
  try {
    await page.waitForFunction(() => window.__tikron?.joined === true, undefined, { timeout: 30_000, polling: 100 });
  } catch (err) {
    const state = await page.evaluate(() => ({ status: window.__tikron?.status, error: window.__tikron?.lastError, banner: document.getElementById("banner")?.textContent }));
    throw new Error(`page did not join: ${JSON.stringify(state)}; ${String(err)}`);
  }
}

/** Joins `room` as a Node client (the SDK over `ws`), creating it with the given overrides. */
function watcher<D extends SchemaDecl>(kind: string, room: string, schema: Schema<D>, overrides = OVERRIDES): RoomConnection<ClientView<D>> {
  const conn = connect(server!.wsUrl, {
    kind,
    room,
    name: "watcher",
    decoder: schemaDecoder(schema),
    WebSocketImpl: withQuery(WsWebSocket as unknown as WebSocketConstructor, overrides),
  });
  watchers.push(conn as RoomConnection<unknown>);
  return conn;
}

function cellNamed(view: ClientView<(typeof agarSchema)["decl"]>, name: string): { id: number; x: number; y: number; r: number } | undefined {
  for (const e of view.values()) if (e.type === "player" && e.record.name === name) return { id: e.id, x: e.record.x, y: e.record.y, r: e.record.r };
  return undefined;
}

/** The fps session's debug values the test reads. */
interface FpsExtras {
  tracers: number;
  serverTracers: number;
  lastOwnTracer: { hit: number } | null;
  camera: { x: number; y: number; scale: number; width: number; height: number };
  players: { pid: number; x: number; y: number; hp: number }[];
}

async function fpsExtras(page: Page): Promise<FpsExtras> {
  return (await page.evaluate(() => window.__tikron!.extras)) as unknown as FpsExtras;
}

function namesIn(view: ClientView<(typeof agarSchema)["decl"]>): string {
  const names: string[] = [];
  for (const e of view.values()) if (e.type === "player") names.push(e.record.name);
  return names.length > 0 ? names.join(", ") : "no players";
}

/** Pixels near the canvas centre in the own cell's colour (the camera centres on it). */
async function ownCellPixels(page: Page): Promise<number> {
  return page.evaluate((rgb) => {
    const canvas = document.getElementById("view") as HTMLCanvasElement;
    const ctx = canvas.getContext("2d")!;
    const size = 80;
    const data = ctx.getImageData(Math.floor(canvas.width / 2 - size / 2), Math.floor(canvas.height / 2 - size / 2), size, size).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i]! - rgb[0]!) < 12 && Math.abs(data[i + 1]! - rgb[1]!) < 12 && Math.abs(data[i + 2]! - rgb[2]!) < 12) n++;
    }
    return n;
  }, OWN_FILL);
}

describe("demo page in headless Chromium", () => {
  it("agar: joins, moves with the keyboard, and another client sees it move", async () => {
    const room = `e2e-agar-${Date.now().toString(36)}`;
    const name = `e2e-${Math.floor(Math.random() * 0xffff).toString(16)}`;
    const watch = watcher("agar", room, agarSchema);
    await watch.whenJoined();

    const { page, errors } = await openPage({ game: "agar", room, name });
    await waitJoined(page);

    // Both sides agree on the page's cell while it stands still.
    const start = await waitFor(
      () => `the watcher to see the page's cell (watcher ${watch.status}, frames ${watch.stats.frames}, sees ${namesIn(watch.decoder.state)})`,
      () => cellNamed(watch.decoder.state, name),
    );
    const pageStart = await page.evaluate(() => window.__tikron!.serverSelf);
    expect(pageStart).not.toBeNull();
    expect(Math.hypot(pageStart!.x - start.x, pageStart!.y - start.y)).toBeLessThan(1);
    await page.waitForTimeout(400);
    const idle = cellNamed(watch.decoder.state, name)!;
    expect(Math.hypot(idle.x - start.x, idle.y - start.y), "the cell moved without input").toBeLessThan(1);

    // Hold a movement key toward the farther wall.
    const right = start.x < WORLD / 2;
    const key = right ? "KeyD" : "KeyA";
    await page.keyboard.down(key);
    await page.waitForTimeout(1500);
    await page.keyboard.up(key);

    const moved = await waitFor(() => `the watcher to see the cell move (from x ${start.x}, now ${JSON.stringify(cellNamed(watch.decoder.state, name))})`, () => {
      const c = cellNamed(watch.decoder.state, name);
      return c && (right ? c.x - start.x : start.x - c.x) > 150 ? c : undefined;
    });
    // Horizontal keys move horizontally only. The one vertical shift allowed is the wall's: a
    // cell spawned within a radius of the top or bottom wall is pushed inward as orbs grow it
    // (seen once: 1.25 units), never more than its growth.
    expect(Math.abs(moved.y - start.y)).toBeLessThan(1 + Math.max(0, moved.r - start.r));
    expect(moved.id).toBe(start.id);

    // Once inputs stop, the prediction must settle on what everybody else sees.
    await page.waitForTimeout(600);
    const settled = cellNamed(watch.decoder.state, name)!;
    const dbg = await page.evaluate(() => {
      const t = window.__tikron!;
      return { self: t.self, serverSelf: t.serverSelf, stats: t.stats, extras: t.extras, frames: t.renderedFrames, status: t.status };
    });
    // A reconnect here means the server restarted under the test (e.g. wrangler reloading
    // after a source edit): every position below would then belong to a fresh room.
    const context = `page ${JSON.stringify({ self: dbg.self, server: dbg.serverSelf, reconnects: dbg.stats.reconnects })}, watcher ${JSON.stringify({ ...settled, reconnects: watch.stats.reconnects })}`;
    expect(dbg.stats.reconnects + watch.stats.reconnects, `reconnected mid-test: ${context}`).toBe(0);
    expect(dbg.status).toBe("joined");
    expect(dbg.self).not.toBeNull();
    expect(Math.hypot(dbg.self!.x - settled.x, dbg.self!.y - settled.y), `prediction did not settle on the server position: ${context}`).toBeLessThan(2);
    expect(dbg.stats.lastAck).toBeGreaterThan(0);
    expect(dbg.stats.inputsSent).toBeGreaterThan(20);
    expect(dbg.stats.rttMs).toBeGreaterThan(0);
    // The watcher's cell is interpolated on the page.
    expect(dbg.extras.remotes).toBeGreaterThanOrEqual(1);
    expect(dbg.frames).toBeGreaterThan(30);

    expect(await ownCellPixels(page), "own cell not drawn at the centre").toBeGreaterThan(100);
    expect(await page.locator("#stats").textContent()).toMatch(/rtt\s+\d/);
    await page.screenshot({ path: join(ARTIFACTS, "agar.png") });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("agar: prediction keeps the own cell responsive under simulated latency", async () => {
    const room = `e2e-net-${Date.now().toString(36)}`;
    const name = `e2e-${Math.floor(Math.random() * 0xffff).toString(16)}`;
    const { page, errors } = await openPage({ game: "agar", room, name, net: "150,0" });
    await waitJoined(page);
    await page.waitForFunction(() => window.__tikron!.stats.rttMs > 250, undefined, { timeout: 10_000 });

    const before = await page.evaluate(() => ({ self: window.__tikron!.self!, server: window.__tikron!.serverSelf! }));
    const key = before.server.x < WORLD / 2 ? "KeyD" : "KeyA";
    await page.keyboard.down(key);
    // Well under the ~300 ms round trip: only prediction can have moved the cell yet.
    await page.waitForTimeout(150);
    const early = await page.evaluate(() => ({ self: window.__tikron!.self!, server: window.__tikron!.serverSelf! }));
    await page.keyboard.up(key);
    expect(Math.abs(early.self.x - before.self.x), "predicted cell did not move at once").toBeGreaterThan(5);
    expect(Math.abs(early.server.x - before.server.x), "server moved faster than the simulated latency allows").toBeLessThan(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("fps: a click draws a tracer at once and the server's rewound hitscan hits the target", async (ctx) => {
    if (!hostedKinds.includes("fps")) ctx.skip("the gateway does not host fps");
    const room = `e2e-fps-${Date.now().toString(36)}`;
    // Small enough that the whole arena is on screen, clear of the control panel.
    const overrides = new URLSearchParams({ world: "400", aoi: "3000" });
    const watch = watcher("fps", room, fpsSchema, overrides);
    await watch.whenJoined();
    // 100 ms each way: the page's own tracer must show long before the server's answer can.
    const { page, errors } = await openPage({ game: "fps", room, name: "e2e-fps", net: "100,0" }, overrides, { width: 1400, height: 900 });
    await waitJoined(page);

    // Aim only once the view is still: the camera follows the smoothed own player, and a camera
    // still settling after the join would move the clicked world point off the target.
    let previous: { x: number; y: number } | null = null;
    const target = await waitFor("the page to see the target with a settled camera", async () => {
      const ex = await fpsExtras(page);
      const t = ex.players.find((p) => p.pid === watch.playerId);
      const cam = ex.camera;
      const still = previous !== null && Math.abs(cam.x - previous.x) < 0.25 && Math.abs(cam.y - previous.y) < 0.25;
      previous = { x: cam.x, y: cam.y };
      return t && still ? { t, cam } : undefined;
    });
    const sx = (target.t.x - target.cam.x) * target.cam.scale + target.cam.width / 2;
    const sy = (target.t.y - target.cam.y) * target.cam.scale + target.cam.height / 2;
    await page.mouse.move(sx, sy);
    await page.mouse.down();
    await page.mouse.up();
    const early = (await page.evaluate(
      () =>
        new Promise<unknown>((resolve) => {
          // Two animation frames: the click is read on the next one.
          requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.__tikron!.extras)));
        }),
    )) as unknown as FpsExtras;
    expect(early.tracers, "no tracer drawn at the click").toBe(1);
    // Instant feedback means: drawn before the server's answer (≥ 200 ms away) exists.
    expect(early.serverTracers, "the local tracer was not drawn before the server answered").toBe(0);

    // The server's tracer names the target, and the target lost hp in its own view.
    const own = await waitFor("the server's tracer", async () => {
      const ex = await fpsExtras(page);
      return ex.lastOwnTracer ?? undefined;
    });
    expect(own.hit).toBe(watch.playerId);
    await waitFor("the target to see its hp drop", () => {
      for (const e of watch.decoder.state.values()) if (e.type === "player" && e.record.pid === watch.playerId && e.record.hp < 100) return e.record.hp;
      return undefined;
    });
    await page.waitForTimeout(100);
    await page.screenshot({ path: join(ARTIFACTS, "fps.png") });
    expect(await page.evaluate(() => window.__tikron!.lastError)).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  });
});
