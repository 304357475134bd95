/**
 * Who is joining, in headless Chromium, against the gateway under `wrangler dev` with the
 * production config in DEV_MODE (its `RESULTS` D1 with the games' migrations, so records are
 * kept): the game's own refusal of a join (tic-tac-toe's mark already taken) reaches the page's
 * SDK as a typed `JoinError` with the game's code; and the lobby shows this browser's own
 * tic-tac-toe record, kept by its guest identity across rooms.
 */
import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type RoomConnection } from "@tikron/client";
import { tttTypes } from "@tikron/games/schemas";
import { REPO_ROOT, startWranglerDev, type WranglerDevServer } from "../../gateway/test/harness/wranglerDev";
import { runWrangler } from "../../gateway/test/hardeningWorker";
import { buildWeb } from "../build";
import { ensureChromium, launchChromium, stopBrowserAndServer, type ChromiumHandle } from "./harness/chromium";
import { waitFor } from "./harness/waitFor";

let server: WranglerDevServer | undefined;
let chrome: ChromiumHandle | undefined;
/** The SDK as a page script: `window.Tikron`. */
let sdkScript = "";
const open: RoomConnection<any>[] = [];

beforeAll(async () => {
  const executable = ensureChromium();
  await buildWeb();
  const bundled = await build({
    stdin: { contents: `export { connect, JoinError, gameRefusal, jsonDialect } from "@tikron/client";`, resolveDir: `${REPO_ROOT}/apps/web`, loader: "ts" },
    bundle: true,
    format: "iife",
    globalName: "Tikron",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  sdkScript = bundled.outputFiles[0]!.text;
  server = await startWranglerDev({ config: "wrangler.jsonc", vars: { DEV_MODE: "true" } });
  const applied = await runWrangler(["d1", "migrations", "apply", "RESULTS", "--local", "--persist-to", `${server.persistDir}/state`, "--config", "wrangler.jsonc"]);
  if (applied.code !== 0) throw new Error(`applying the RESULTS migrations failed:\n${applied.output}`);
  chrome = await launchChromium(executable);
});

afterAll(async () => {
  for (const c of open) c.close();
  // Nothing may outlive the suite, on any path.
  expect(await stopBrowserAndServer(chrome, server)).toEqual([]);
});

/** A tic-tac-toe player from Node: the guest of `key`, asking for `mark`. */
async function nodePlayer(room: string, key: string, mark?: "X" | "O") {
  const conn = connect(`${server!.wsUrl}?guest=${key}`, { game: tttTypes, room, name: key.slice(0, 8), ...(mark ? { joinOptions: { mark } } : {}), reconnect: false });
  open.push(conn);
  await conn.whenJoined();
  return conn;
}

/** X (the first to join) takes the top row while O plays the middle one. */
async function xWins(x: Awaited<ReturnType<typeof nodePlayer>>, o: typeof x): Promise<void> {
  await waitFor("the round to start", () => (x.state?.status === "playing" ? true : undefined));
  for (const [p, cell] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as const) {
    const before = p.state?.board.filter((c) => c !== null).length ?? 0;
    p.sendInput({ cell });
    await waitFor(`move ${cell}`, () => ((p.state?.board.filter((c) => c !== null).length ?? 0) > before ? true : undefined));
  }
  await waitFor("the win", () => (x.state?.status === "won" ? true : undefined));
}

describe("who is joining, in Chromium", () => {
  it("the game's refusal of a join (its mark is taken) reaches the page as a JoinError join_refused, with the game's code read by gameRefusal", async () => {
    await nodePlayer("e2e-marks", "node-key-0000000000000001", "X");
    const page: Page = await chrome!.browser.newPage();
    await page.goto(`${server!.url}/`);
    await page.addScriptTag({ content: sdkScript });
    const r = await page.evaluate(async (url) => {
      const T = (window as unknown as { Tikron: typeof import("@tikron/client") }).Tikron;
      const conn = T.connect(`${url}?guest=page-key-00000000000001`, { kind: "ttt-json", room: "e2e-marks", json: T.jsonDialect, joinOptions: { mark: "X" } });
      try {
        await conn.whenJoined();
        return { joined: true };
      } catch (e) {
        const err = e as InstanceType<typeof T.JoinError>;
        return { joined: false, isJoinError: e instanceof T.JoinError, code: err.code, closeCode: err.closeCode, reason: err.reason, refusal: T.gameRefusal(e), status: conn.status };
      }
    }, server!.url);
    expect(r).toEqual({
      joined: false,
      isJoinError: true,
      code: "join_refused",
      closeCode: 4024,
      reason: "mark_taken: X is taken; ask for O, or for no mark",
      refusal: { code: "mark_taken", reason: "X is taken; ask for O, or for no mark" },
      status: "closed",
    });
    await page.close();
  });

  it("the lobby shows this browser's own tic-tac-toe record: a win in one room and a loss in another, kept by its guest identity", async () => {
    const page: Page = await chrome!.browser.newPage();
    await page.goto(`${server!.url}/`);
    // The lobby made this browser's guest key (and asked for its record: none yet).
    const key = await waitFor("the page's guest key", () => page.evaluate(() => localStorage.getItem("tikron.guest") ?? undefined));
    await waitFor("the empty record", () => page.evaluate(() => document.getElementById("ttt-record")?.textContent ?? undefined));
    expect(await page.textContent("#ttt-record")).toBe("your record: 0 won · 0 lost · 0 drawn");
    const rival = "rival-key-000000000000001";
    // This browser's guest wins the first room (it joins first: X) and loses the second.
    const a = await nodePlayer("e2e-rec1", key);
    const b = await nodePlayer("e2e-rec1", rival);
    await xWins(a, b);
    const c = await nodePlayer("e2e-rec2", rival);
    const d = await nodePlayer("e2e-rec2", key);
    await xWins(c, d);
    await waitFor("the loss in the game's view", () => (d.state?.record?.losses === 1 ? true : undefined));
    // Written to D1 off the tick path: the lobby reads it back on its next load.
    const text = await waitFor(
      "the lobby's record line",
      async () => {
        await page.reload();
        const t = await page.evaluate(() => new Promise<string | undefined>((resolve) => setTimeout(() => resolve(document.getElementById("ttt-record")?.textContent ?? undefined), 300)));
        return t === "your record: 1 won · 1 lost · 0 drawn" ? t : undefined;
      },
      20_000,
    );
    expect(text).toBe("your record: 1 won · 1 lost · 0 drawn");
    await page.close();
  });
});
