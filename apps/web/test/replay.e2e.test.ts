/**
 * The replay viewer at /replay in headless Chromium, against the gateway under `wrangler dev`
 * with the production config (local R2 as `REPLAYS`, an ADMIN_TOKEN): an agar match played by
 * three raw clients is recorded; the admin console lists it and links it to the viewer; the
 * viewer, seeked to the match's middle and seeing as a player, draws exactly the entities that
 * player's client had decoded by then (the same ids at the same positions), the whole world
 * holds more, and play moves time on at the chosen speed.
 */
import type { Page } from "playwright-core";
import { agarInputs, agarTypes } from "@tikron/games/schemas";
import { BinaryWriter, ClientView, decodeServerMessage, isDecodeError, type MatchSummary } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawClient } from "../../../test/roomProtocol/rawClient";
import { startWranglerDev, type WranglerDevServer } from "../../gateway/test/harness/wranglerDev";
import { freezeWorker, type FrozenWorker } from "../../gateway/test/hardeningWorker";
import { buildWeb } from "../build";
import type { ViewedEntity } from "../src/replayModel";
import { ensureChromium, launchChromium, stopBrowserAndServer, type ChromiumHandle } from "./harness/chromium";
import { waitFor } from "./harness/waitFor";

const ADMIN_TOKEN = "replay-viewer-token-0123456789abcdef";
let server: WranglerDevServer | undefined;
let worker: FrozenWorker | undefined;
let chrome: ChromiumHandle | undefined;
let page: Page;

beforeAll(async () => {
  const executable = ensureChromium();
  await buildWeb();
  worker = await freezeWorker("wrangler.jsonc");
  server = await startWranglerDev({ config: worker.configPath, vars: { DEV_MODE: "true", ADMIN_TOKEN } });
  chrome = await launchChromium(executable);
  page = await chrome.browser.newPage();
});

afterAll(async () => {
  expect(await stopBrowserAndServer(chrome, server)).toEqual([]);
  worker?.remove();
});

/** What a client had decoded once it applied every frame sent at room time `t` or before. */
function seenAt(raw: readonly Uint8Array[], t: number): ViewedEntity[] {
  const view = new ClientView(agarTypes.schema!);
  for (const data of raw) {
    const m = decodeServerMessage(data);
    if (isDecodeError(m)) continue;
    if (m.kind === "welcome") view.clear();
    else if (m.kind === "frame" && m.time <= t && m.hasState && m.body instanceof Uint8Array) view.apply(m.body);
  }
  const out: ViewedEntity[] = [];
  for (const e of view.values()) {
    const rec = e.record as Record<string, unknown>;
    out.push({ id: e.id, type: e.type, x: rec.x as number, y: rec.y as number, r: typeof rec.r === "number" ? rec.r : null });
  }
  return out.sort((a, b) => a.id - b.id);
}

const state = (p: Page) =>
  p.evaluate(() => {
    const r = (window as unknown as { __replay: { model: { time: number; duration: number } | null; drawn: ViewedEntity[]; as: number } }).__replay;
    return { loaded: r.model !== null, time: r.model?.time ?? 0, duration: r.model?.duration ?? 0, drawn: r.drawn, as: r.as };
  });

describe("the replay viewer", () => {
  it("is linked from the console and shows a player's view at the match's middle as that player saw it", async () => {
    const roomId = `view-${Date.now().toString(36)}`;
    const url = `${server!.wsUrl}/rooms/agar/${roomId}`;
    const clients = [new RawClient(url), new RawClient(url), new RawClient(url)];
    for (const [i, c] of clients.entries()) expect(await c.join(`p${i}`)).not.toBeNull();
    const w = new BinaryWriter();
    for (let step = 0; step < 60; step++) {
      for (const [i, c] of clients.entries()) c.sendInput(agarInputs.write(w.reset(), { dx: Math.cos(step / 8 + i * 2), dy: Math.sin(step / 6 - i), boost: false }).toBytes());
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const c of clients) c.close();
    await Promise.all(clients.map((c) => c.done));

    // The console lists it once the empty room was let go (10 s), with a link to the viewer.
    await page.goto(`${server!.url}/admin`);
    await page.fill("#token", ADMIN_TOKEN);
    await page.click("#token-form button");
    await page.fill("#replays-kind", "agar");
    const link = await waitFor(
      "the match in the console",
      async () => {
        await page.click("#replays-form button");
        await new Promise((r) => setTimeout(r, 500));
        const rows = await page.$$eval("#replays-body tr", (trs) => trs.map((tr) => [tr.children[1]!.textContent, tr.querySelector("a.replay-link")?.getAttribute("href")]));
        return rows.find((r) => r[0] === roomId)?.[1] ?? undefined;
      },
      40_000,
    );
    const matchId = new URLSearchParams(link.split("?")[1]).get("match")!;
    const summary = ((await (await fetch(`${server!.url}/admin/api/replays/agar`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as MatchSummary[]).find((m) => m.matchId === matchId)!;
    expect(summary.players).toBe(3);

    // The middle frame of the second player: the viewer seeks to its time, seeing as that player.
    const who = clients[1]!;
    const frames = who.raw.map((d) => decodeServerMessage(d)).filter((m) => !isDecodeError(m) && m.kind === "frame") as { time: number }[];
    const middle = frames[Math.floor(frames.length / 2)]!.time;
    const expected = seenAt(who.raw, middle);
    expect(expected.length).toBeGreaterThan(1);

    await page.click(`a.replay-link[href="${link}"]`);
    await page.waitForURL(/\/replay\?/);
    await page.goto(`${server!.url}${link}&as=${who.welcome!.playerId}`);
    await waitFor("the match loaded", async () => ((await state(page)).loaded ? true : undefined), 15_000);
    await page.evaluate((t) => {
      const bar = document.getElementById("seek") as HTMLInputElement;
      bar.value = String(t);
      bar.dispatchEvent(new Event("input"));
    }, middle);
    const atMiddle = await waitFor("the seek", async () => {
      const s = await state(page);
      return s.time === middle ? s : undefined;
    });
    expect(atMiddle.as).toBe(who.welcome!.playerId);
    expect(atMiddle.drawn).toEqual(expected);
    expect(await page.textContent("#status")).not.toContain("differs");

    // The whole world holds the player's view and more.
    await page.selectOption("#as", "0");
    const world = (await state(page)).drawn;
    expect(world.length).toBeGreaterThan(expected.length);
    for (const e of expected) expect(world).toContainEqual(e);

    // Play at 1×: time moves on about as fast as the wall clock (a frame's few ms add up).
    await page.click("#play");
    let started = Date.now();
    await new Promise((r) => setTimeout(r, 600));
    const at1 = (await state(page)).time;
    expect(at1 - middle).toBeGreaterThan((Date.now() - started) * 0.4);
    // At 4×, several times faster than the wall clock.
    await page.selectOption("#speed", "4");
    started = Date.now();
    await new Promise((r) => setTimeout(r, 400));
    const later = await state(page);
    expect(later.time - at1).toBeGreaterThan((Date.now() - started) * 1.5);
    expect(await page.textContent("#graph-legend")).toMatch(/frame gaps/);
  });
});
