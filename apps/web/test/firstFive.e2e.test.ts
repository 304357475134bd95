/**
 * The first five minutes, end to end in headless Chromium against `wrangler dev` (staging
 * config): the lobby lists a room another client made and joins it, and watches one as a spectator; two tabs form a party in the
 * lobby and land in one room; old `/?game=` links land on `/play`; movement (steered with the
 * touch stick on a phone-sized screen) and ttt-json (against a bot) render and react; bots added from the page are seen moving; the net graph and room
 * panel draw; an idle fps room counts no starvation over 20 s. Screenshots go to test-artifacts/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { connect, type RoomConnection, type WebSocketConstructor } from "@tikron/client";
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
const PHONE = { width: 390, height: 760 };

let server: WranglerDevServer | undefined;
let chrome: ChromiumHandle | undefined;
const others: RoomConnection<unknown>[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  const executable = ensureChromium();
  await buildWeb();
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
  chrome = await launchChromium(executable);
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  for (const c of others) c.close();
  expect(await stopBrowserAndServer(chrome, server)).toEqual([]);
  // No page errors anywhere in this file.
  expect(pageErrors).toEqual([]);
});

/** The SDK over `ws`, joining with the DEV_MODE override `cap=1` (the room is made with one seat). */
const withCap1 = withQuery(WsWebSocket as unknown as WebSocketConstructor, new URLSearchParams({ cap: "1" }));

const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;

async function newPage(viewport = { width: 1100, height: 700 }, touch = false): Promise<Page> {
  const page = await chrome!.browser.newPage({ viewport, hasTouch: touch, isMobile: touch });
  page.on("pageerror", (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(`console: ${m.text()}`);
  });
  return page;
}

async function waitJoined(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__tikron?.joined === true, undefined, { timeout: 30_000, polling: 100 });
}

const extras = (page: Page) => page.evaluate(() => window.__tikron!.extras) as Promise<Record<string, unknown>>;

/** The page's entities (allocating debug copy) by id. */
async function positions(page: Page): Promise<Map<number, { x: number; y: number; name?: string }>> {
  const list = await page.evaluate(() => window.__tikron!.entities());
  return new Map(list.map((e) => [e.id, e]));
}

describe("the first five minutes", () => {
  it("the lobby lists a room another client created, and its join link plays it", async () => {
    const room = uid("lobby-e2e");
    const other = connect(server!.wsUrl, { kind: "agar", room, name: "creator", WebSocketImpl: WsWebSocket as unknown as WebSocketConstructor });
    others.push(other as RoomConnection<unknown>);
    await other.whenJoined();

    const page = await newPage();
    await page.goto(`${server!.url}/`);
    const row = page.locator(`#game-agar tr.room`, { hasText: room });
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain("1 / 20");
    await page.screenshot({ path: join(ARTIFACTS, "lobby.png") });
    await row.locator("a.join").click();
    await page.waitForURL(/\/play\?/);
    await waitJoined(page);
    expect(await page.evaluate(() => ({ game: window.__tikron!.game, room: window.__tikron!.room }))).toEqual({ game: "agar", room });
    // Two players now: the lobby shows it within a report interval plus a poll.
    const lobby = await newPage();
    await lobby.goto(`${server!.url}/`);
    await lobby.locator(`#game-agar tr.room`, { hasText: "2 / 20" }).filter({ hasText: room }).waitFor({ timeout: 15_000 });
    await lobby.close();
    await page.close();
  });

  it("the lobby's watch link opens a live agar match as a spectator: no seat, the players' cells drawn", async () => {
    const room = uid("watch-e2e");
    const other = connect(server!.wsUrl, { kind: "agar", room, name: "watched", WebSocketImpl: WsWebSocket as unknown as WebSocketConstructor });
    others.push(other as RoomConnection<unknown>);
    await other.whenJoined();
    const page = await newPage();
    await page.goto(`${server!.url}/`);
    const row = page.locator(`#game-agar tr.room`, { hasText: room });
    await row.waitFor({ timeout: 15_000 });
    await row.locator("a.watch").click();
    await page.waitForURL(/\/play\?.*watch=1/);
    await waitJoined(page);
    expect(await page.evaluate(() => window.__tikron!.playerId)).toBe(0);
    // The watched player's cell reaches the spectator's view.
    await page.waitForFunction(() => window.__tikron!.entities().some((e) => e.type === "player" && e.name === "watched"), undefined, { timeout: 15_000, polling: 100 });
    const stats = (await (await fetch(`${server!.url}/rooms/agar/${room}/stats`)).json()) as { seats: number; spectators?: { connected: number } };
    expect(stats.seats).toBe(1);
    expect(stats.spectators?.connected).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, "watch.png") });
    await page.close();
  });

  it("play now in two tabs lands both in the same room; a private room's code brings another tab into it, and the lobby never lists it", async () => {
    const playNow = async (): Promise<{ page: Page; room: string }> => {
      const page = await newPage();
      await page.goto(`${server!.url}/`);
      await page.locator("#game-agar a.play-now").click();
      await page.waitForURL(/\/play\?game=agar&room=/);
      await waitJoined(page);
      return { page, room: await page.evaluate(() => window.__tikron!.room) };
    };
    const a = await playNow();
    const b = await playNow();
    expect(b.room).toBe(a.room);
    // The address bar names the room: it is the link to share.
    expect(new URL(a.page.url()).searchParams.get("room")).toBe(a.room);

    const host = await newPage();
    await host.goto(`${server!.url}/`);
    await host.locator("#game-agar a.private-room").click();
    await host.waitForURL(/\/play\?game=agar&room=/);
    await waitJoined(host);
    const code = await host.evaluate(() => window.__tikron!.room);
    expect(code).not.toBe(a.room);

    const guest = await newPage();
    await guest.goto(`${server!.url}/`);
    await guest.locator("#game-agar input.code").fill(code);
    await guest.locator("#game-agar form.join-code button").click();
    await guest.waitForURL(new RegExp(`room=${code}`));
    await waitJoined(guest);
    expect(await guest.evaluate(() => window.__tikron!.room)).toBe(code);
    const stats = (await (await fetch(`${server!.url}/rooms/agar/${code}/stats`)).json()) as { seats: number; listing: { private: boolean } };
    expect(stats).toMatchObject({ seats: 2, listing: { private: true } });

    // The lobby lists the play-now room (two players) but never the private one.
    const lobby = await newPage();
    await lobby.goto(`${server!.url}/`);
    await lobby.locator("#game-agar tr.room", { hasText: a.room }).waitFor({ timeout: 15_000 });
    expect(await lobby.locator("#game-agar tr.room", { hasText: code }).count()).toBe(0);
    await lobby.screenshot({ path: join(ARTIFACTS, "lobby-matchmaking.png") });
    for (const p of [a.page, b.page, host, guest, lobby]) await p.close();
  });

  it("two tabs (two browser contexts) form a party in the lobby and land in the same room", async () => {
    const lobby = async (name: string): Promise<Page> => {
      const page = await newPage();
      await page.goto(`${server!.url}/`);
      await page.locator("#party-name").fill(name);
      return page;
    };
    const ann = await lobby("ann");
    await ann.locator("#party-game").selectOption("agar");
    await ann.locator("#party-make").click();
    const code = await waitFor("the party's code", async () => (await ann.locator("#party-code").textContent())?.trim() || undefined);
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(await ann.locator("#party").textContent()).toContain("(agar)");
    // Bob picks the party's game and types the code as he heard it (lower case, a dash).
    const bob = await lobby("bob");
    await bob.locator("#party-game").selectOption("agar");
    await bob.locator("#party-code-input").fill(`${code.slice(0, 5)}-${code.slice(5)}`.toLowerCase());
    await bob.locator("#party-join").click();
    await bob.locator("#party-members li", { hasText: "ann (leader)" }).waitFor({ timeout: 15_000 });
    // Ann's tab hears bob join (the long poll); only the leader may start.
    await ann.locator("#party-members li", { hasText: "bob" }).waitFor({ timeout: 15_000 });
    expect(await bob.locator("#party-start").isVisible()).toBe(false);
    await ann.screenshot({ path: join(ARTIFACTS, "lobby-party.png") });
    await ann.locator("#party-start").click();
    await Promise.all([ann, bob].map((p) => p.waitForURL(/\/play\?game=agar&.*room=/, { timeout: 15_000 })));
    await Promise.all([ann, bob].map(waitJoined));
    const [a, b] = await Promise.all([ann, bob].map((p) => p.evaluate(() => ({ room: window.__tikron!.room, name: window.__tikron!.name }))));
    expect(a).toMatchObject({ name: "ann" });
    expect(b).toMatchObject({ name: "bob", room: a!.room });
    // Each joined with its own reservation, which never reached the address bar.
    for (const p of [ann, bob]) expect(p.url()).not.toContain("reservation");
    const stats = (await (await fetch(`${server!.url}/rooms/agar/${a!.room}/stats`)).json()) as { reservations: { used: number } };
    expect(stats.reservations.used).toBeGreaterThanOrEqual(2);
    for (const p of [ann, bob]) await p.close();
  });

  it("movement on a phone: an old /?game= link lands on /play, and the touch stick walks the dot", async () => {
    const page = await newPage(PHONE, true);
    const room = uid("move-e2e");
    await page.goto(`${server!.url}/?game=movement&room=${room}&name=phone`);
    await page.waitForURL(/\/play\?game=movement/);
    await waitJoined(page);
    const start = await waitFor("the own dot", async () => (await page.evaluate(() => window.__tikron!.serverSelf)) ?? undefined);
    const dir = start.x < 1000 ? 1 : -1;
    // A touch in the left half becomes the stick; dragging it steers.
    const canvas = page.locator("#view");
    const x0 = 80;
    const y0 = PHONE.height - 120;
    await canvas.dispatchEvent("pointerdown", { pointerType: "touch", pointerId: 7, clientX: x0, clientY: y0, button: 0, isPrimary: true });
    await canvas.dispatchEvent("pointermove", { pointerType: "touch", pointerId: 7, clientX: x0 + dir * 60, clientY: y0, isPrimary: true });
    await page.waitForTimeout(1200);
    expect(await page.locator(".stick-base").isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "movement-phone.png") });
    await canvas.dispatchEvent("pointerup", { pointerType: "touch", pointerId: 7, clientX: x0 + dir * 60, clientY: y0, isPrimary: true });
    const moved = await waitFor("the dot to walk", async () => {
      const p = await page.evaluate(() => window.__tikron!.serverSelf);
      return p && (p.x - start.x) * dir > 100 ? p : undefined;
    });
    expect(Math.abs(moved.y - start.y)).toBeLessThan(5);
    expect(await page.locator("#help").textContent()).toContain("touch");
    await page.close();
  });

  it("ttt-json: a bot opponent answers a click on the board", async () => {
    const page = await newPage();
    const room = uid("ttt-e2e");
    await page.goto(`${server!.url}/play?game=ttt-json&room=${room}&bots=1`);
    await waitJoined(page);
    type View = { status: string; you: "X" | "O" | null; turn: string | null; board: (string | null)[] };
    const view = await waitFor("my turn in a round against the bot", async () => {
      const v = (await extras(page)).ttt as View | null;
      return v && v.status === "playing" && v.turn === v.you ? v : undefined;
    }, 15_000);
    const mine = view.you!;
    const theirs = mine === "X" ? "O" : "X";
    const theirsBefore = view.board.filter((c) => c === theirs).length;
    // Click the first free cell: the board is centred, 60 % of the shorter side.
    const cell = view.board.indexOf(null);
    const size = Math.min(1100, 700) * 0.6;
    await page.mouse.click((1100 - size) / 2 + ((cell % 3) + 0.5) * (size / 3), (700 - size) / 2 + (Math.floor(cell / 3) + 0.5) * (size / 3));
    const board = await waitFor("the bot's answer", async () => {
      const v = (await extras(page)).ttt as View | null;
      return v && v.board.filter((c) => c === theirs).length === theirsBefore + 1 ? v.board : undefined;
    });
    expect(board[cell]).toBe(mine);
    await page.screenshot({ path: join(ARTIFACTS, "ttt.png") });
    expect(await page.evaluate(() => window.__tikron!.lastError)).toBeNull();
    await page.close();
  });

  it("bots added from the page are seen moving, and the net graph and room panel draw", async () => {
    const page = await newPage();
    const room = uid("bots-e2e");
    await page.goto(`${server!.url}/play?game=movement&room=${room}&name=host`);
    await waitJoined(page);
    await page.fill("#bots", "6");
    await page.click("#bots-set");
    await waitFor("6 bots", async () => ((await extras(page)).botsStatus === "6 bots" ? true : undefined));
    const first = await waitFor("the bots' dots", async () => {
      const p = await positions(page);
      return p.size >= 7 ? p : undefined;
    });
    await page.waitForTimeout(1000);
    const later = await positions(page);
    let moving = 0;
    for (const [id, a] of first) {
      const b = later.get(id);
      if (a.name?.startsWith("bot-") && b && Math.hypot(b.x - a.x, b.y - a.y) > 20) moving++;
    }
    expect(moving).toBeGreaterThanOrEqual(5);

    await page.keyboard.press("KeyG");
    await waitFor("the net graph and room panel", async () => {
      const ex = await extras(page);
      return (ex.netGraphDraws as number) > 10 && (ex.roomPanelAnswers as number) >= 1 ? true : undefined;
    });
    const inked = await page.evaluate(() => {
      const c = document.getElementById("netgraph-canvas") as HTMLCanvasElement;
      const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(2000);
    expect(await page.locator("#room-panel").textContent()).toMatch(/bots 6/);
    await page.screenshot({ path: join(ARTIFACTS, "netgraph-bots.png") });
    await page.close();
  });

  it("a full room says so, and points back to the lobby", async () => {
    const room = uid("full-e2e");
    const other = connect(`${server!.wsUrl}`, { kind: "movement", room, name: "first", WebSocketImpl: withCap1 });
    others.push(other as RoomConnection<unknown>);
    await other.whenJoined();
    const page = await newPage();
    await page.goto(`${server!.url}/play?game=movement&room=${room}&cap=1`);
    await page.locator("#banner", { hasText: "This room is full" }).waitFor({ timeout: 15_000 });
    // It stays: the SDK ends a join refused with room_full (no retry), the banner says what to do.
    await page.waitForTimeout(1500);
    expect(await page.locator("#banner").textContent()).toContain("This room is full");
    expect(await page.locator("#lobby-link").getAttribute("href")).toBe("/");
    await page.screenshot({ path: join(ARTIFACTS, "room-full.png") });
    await page.close();
  });

  it("an idle fps room counts no starvation over 20 s", async () => {
    const page = await newPage();
    const room = uid("idle-e2e");
    await page.goto(`${server!.url}/play?game=fps&room=${room}&name=idle`);
    await waitJoined(page);
    await page.waitForTimeout(2000);
    const before = await page.evaluate(() => ({ s: window.__tikron!.stats.starvations, f: window.__tikron!.stats.frames, d: window.__tikron!.stats.interpolationDelayMs }));
    await page.waitForTimeout(20_000);
    const after = await page.evaluate(() => ({ s: window.__tikron!.stats.starvations, f: window.__tikron!.stats.frames, d: window.__tikron!.stats.interpolationDelayMs }));
    expect(after.s - before.s, `starvations ${before.s} -> ${after.s}`).toBe(0);
    // The room told the page time advanced: at least the idle frames (4/s) arrived.
    expect(after.f - before.f).toBeGreaterThanOrEqual(20 * 3);
    expect(after.d, "interpolation delay drifted").toBeLessThanOrEqual(Math.max(before.d, 150));
    await page.screenshot({ path: join(ARTIFACTS, "fps-idle.png") });
    await page.close();
  });
});
