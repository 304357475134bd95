/**
 * The admin console at /admin in headless Chromium, against the real gateway under `wrangler dev`
 * with the production config (a frozen bundle, local D1 with its migrations, an ADMIN_TOKEN):
 * styled by its own stylesheet; without the token it shows the refusal; with it the rooms appear live, a room's players and a
 * chart of its numbers; each action asks for confirmation (cancel does nothing) and reaches the
 * players (SDK clients in Node), and the audit log shows it.
 */
import type { Page } from "playwright-core";
import { connect, type RoomConnection } from "@tikron/client";
import { mintRoomTicket } from "@tikron/core/ticket";
import { CloseCode } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDevServer } from "../../gateway/test/harness/wranglerDev";
import { watchOperator } from "../../gateway/test/harness/operatorWatch";
import { freezeWorker, runWrangler, type FrozenWorker } from "../../gateway/test/hardeningWorker";
import { buildWeb } from "../build";
import { ensureChromium, launchChromium, stopBrowserAndServer, type ChromiumHandle } from "./harness/chromium";
import { waitFor } from "./harness/waitFor";

const SECRET = "admin-console-secret-0123456789";
const ADMIN_TOKEN = "admin-console-token-0123456789abcdef";
let server: WranglerDevServer | undefined;
let worker: FrozenWorker | undefined;
let chrome: ChromiumHandle | undefined;
let page: Page;
const open: RoomConnection<any>[] = [];

beforeAll(async () => {
  const executable = ensureChromium();
  await buildWeb();
  worker = await freezeWorker("wrangler.jsonc");
  server = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: SECRET, ADMIN_TOKEN } });
  const applied = await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", `${server.persistDir}/state`, "--config", worker.configPath]);
  if (applied.code !== 0) throw new Error(`migrations failed:\n${applied.output}`);
  chrome = await launchChromium(executable);
  page = await chrome.browser.newPage();
});

afterAll(async () => {
  for (const c of open) c.close();
  // Nothing may outlive the suite, on any path.
  expect(await stopBrowserAndServer(chrome, server)).toEqual([]);
  worker?.remove();
});

async function player(roomId: string, name: string) {
  const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId, playerId: name, ttlSeconds: 600 });
  const conn = connect(server!.wsUrl, { kind: "agar", room: roomId, name, ticket, reconnect: false });
  open.push(conn);
  await conn.whenJoined();
  return { conn, ...watchOperator(conn) };
}

const debug = (p: Page) => p.evaluate(() => (window as unknown as { tikronAdmin: { rooms: number; roomPolls: number; actions: string[]; lastError: string; chartDraws: number } }).tikronAdmin);

/** Clicks `selector` (a button that opens the confirmation), then confirms or cancels. */
async function withConfirmation(selector: string, answer: "yes" | "no"): Promise<string> {
  await page.click(selector);
  await page.waitForSelector("dialog#confirm[open]");
  const text = (await page.textContent("#confirm-text")) ?? "";
  await page.click(answer === "yes" ? "#confirm-yes" : "#confirm-no");
  await page.waitForSelector("dialog#confirm:not([open])", { state: "attached" });
  return text;
}

describe("the admin console", () => {
  it("shows the API's refusal without the token, and the live rooms with it", async () => {
    const ann = await player("con1", "ann");
    await player("con1", "bob");
    await page.goto(`${server!.url}/admin`);
    await waitFor("the refusal", async () => ((await debug(page)).lastError.includes("enter the admin token") ? true : undefined));
    // Styled by its own stylesheet (the console's one file of styles, from @tikron/admin's build).
    expect(await page.evaluate(() => [...document.styleSheets].map((s) => new URL(s.href!).pathname))).toEqual(["/admin/console.css"]);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector(".panel")!).borderRadius)).toBe("8px");
    expect(await page.textContent("#rooms-body")).toBe("");
    await page.fill("#token", ADMIN_TOKEN);
    await page.click("#token-form button");
    await waitFor("the room in the list", async () => ((await page.$('tr[data-room="agar/con1"]')) ? true : undefined), 15_000);
    expect(await page.textContent('tr[data-room="agar/con1"]')).toContain("2/");
    // The token stays in this tab only.
    expect(await page.evaluate(() => sessionStorage.getItem("tikron-admin-token"))).toBe("admin-console-token-0123456789abcdef");
    expect(ann.conn.status).toBe("joined");
  });

  it("shows a room's players with their identities and charts its numbers", async () => {
    await page.click('tr[data-room="agar/con1"]');
    await waitFor("the players", async () => ((await page.$$("#players-body tr")).length === 2 ? true : undefined));
    const rows = await page.$$eval("#players-body tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(1, 4).map((td) => td.textContent)));
    expect(rows).toEqual([
      ["ann", "ann", "connected"],
      ["bob", "bob", "connected"],
    ]);
    await waitFor("a few chart samples", async () => ((await debug(page)).chartDraws >= 3 ? true : undefined), 10_000);
  });

  it("asks before acting: cancel does nothing; a confirmed notice, kick and ban reach the players, and the audit log shows them", async () => {
    const cara = await player("con2", "cara");
    const dan = await player("con2", "dan");
    await waitFor("the new room", async () => ((await page.$('tr[data-room="agar/con2"]')) ? true : undefined), 15_000);
    await page.click('tr[data-room="agar/con2"]');
    // Until the click's first poll answers, the pane still shows the room chosen before (two players too).
    const ids = await waitFor("its players", async () => {
      const seen = await page.$$eval("#players-body tr", (trs) => Object.fromEntries(trs.map((tr) => [tr.querySelectorAll("td")[1]!.textContent, (tr as HTMLElement).dataset.player])));
      return seen.cara && seen.dan && Object.keys(seen).length === 2 ? seen : undefined;
    });

    expect(await withConfirmation(`tr[data-player="${ids.dan}"] button.kick`, "no")).toMatch(/^Kick dan/);
    await new Promise((r) => setTimeout(r, 300));
    expect(dan.conn.status).toBe("joined");
    expect((await debug(page)).actions).toEqual([]);

    await page.fill("#notice-text", "restart in 5 minutes");
    expect(await withConfirmation("#notice-form button", "yes")).toContain("restart in 5 minutes");
    await waitFor("the notice", () => (cara.notices.length && dan.notices.length ? true : undefined));
    expect([cara.notices, dan.notices]).toEqual([["restart in 5 minutes"], ["restart in 5 minutes"]]);

    await withConfirmation(`tr[data-player="${ids.dan}"] button.kick`, "yes");
    expect(await dan.closed).toMatchObject({ code: CloseCode.kicked });

    await page.selectOption(`tr[data-player="${ids.cara}"] select.ban-for`, "3600");
    expect(await withConfirmation(`tr[data-player="${ids.cara}"] button.ban`, "yes")).toMatch(/^Ban cara .* for 1 hour/);
    expect(await cara.closed).toMatchObject({ code: CloseCode.banned });
    await waitFor("the ban listed", async () => ((await page.textContent("#bans"))?.includes("cara") ? true : undefined), 5_000);

    await waitFor("the audit rows", async () => {
      const rows = await page.$$eval("#audit-body tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(1, 6).map((td) => td.textContent)));
      return rows.length >= 3 ? rows : undefined;
    }).then((rows) =>
      expect(rows.slice(0, 3).map((r) => [r[0], r[1], r[2], r[4]])).toEqual([
        ["token", "ban", "agar/con2", "ok"],
        ["token", "kick", "agar/con2", "ok"],
        ["token", "notice", "agar/con2", "ok"],
      ]),
    );
    expect((await debug(page)).actions).toEqual(["notice", "kick", "ban"]);
  });
});
