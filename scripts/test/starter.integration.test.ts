/**
 * The game developer's path, end to end: every published package is built and packed, the
 * starter is copied OUTSIDE the repository and installs those tarballs (no workspace links),
 * type-checks and builds, runs under `wrangler dev` on loopback, and is played from Node with the
 * installed SDK: join, inputs acknowledged and applied, state and events received, a refused
 * input, a room message request answered (and one refused), and a reconnect into the held seat. The starter's own tests run there too, and its
 * type-only checks of the typed SDK must fail exactly where they say they do.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, startWranglerDev, type WranglerDevServer } from "../../tools/devserver/src/wranglerDev";
import { packPackages, type PackedTarballs } from "../pack-packages";

// Types only: at run time these come from the starter's own install of the tarballs.
type Client = typeof import("../../packages/client/src/index");
type Protocol = typeof import("../../packages/protocol/src/index");
type Starter = typeof import("../../examples/starter/src/shared/tag");

/** What the test imports from the starter's own install (bundled with packages left external). */
interface Play {
  connect: Client["connect"];
  schemaDecoder: Client["schemaDecoder"];
  BinaryWriter: Protocol["BinaryWriter"];
  tagSchema: { hash: number };
  encodeTagInput(w: InstanceType<Protocol["BinaryWriter"]>, input: { dx: -1 | 0 | 1; dy: -1 | 0 | 1 }): Uint8Array;
  decodeTagEvent: Starter["decodeTagEvent"];
  TAG_KIND: string;
  tagGame: Starter["tagGame"];
}

interface PlayerRecord {
  x: number;
  y: number;
  it: boolean;
  tags: number;
  name: string;
}

let tmp = "";
let app = "";
let tarballs: PackedTarballs = {};
let server: WranglerDevServer | undefined;
let play: Play;
let testOutput = "";
const closers: (() => void)[] = [];

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 180_000, env: { ...process.env, CI: "true" } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}) in ${cwd}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tikron-starter-"));
  tarballs = packPackages(join(tmp, "packs"));
  app = join(tmp, "app");
  const starter = join(REPO_ROOT, "examples", "starter");
  const skip = new Set(["node_modules", "dist", ".wrangler", "client.js", "client.js.map"]);
  cpSync(starter, app, { recursive: true, filter: (src) => !skip.has(src.slice(src.lastIndexOf(sep) + 1)) });

  // The starter names its @tikron deps by version, as a game developer's would; the overrides
  // make those versions (and the packages' own @tikron deps) resolve to the fresh tarballs.
  const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as Record<string, unknown>;
  manifest.pnpm = {
    overrides: Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`])),
    onlyBuiltDependencies: ["esbuild", "workerd"],
  };
  writeFileSync(join(app, "package.json"), JSON.stringify(manifest, null, 2));
  // Shared store and cached metadata: no download when the versions match the workspace's.
  run("pnpm", ["install", "--prefer-offline", "--reporter=append-only", "--config.confirmModulesPurge=false"], app);
  run("pnpm", ["run", "build"], app);
  testOutput = run("pnpm", ["test"], app).replace(/\u001b\[[0-9;]*m/g, "");

  const out = join(app, "play.mjs");
  await build({
    stdin: {
      contents: [
        `export { connect, schemaDecoder } from "@tikron/client";`,
        `export { BinaryWriter } from "@tikron/protocol";`,
        `export { tagSchema, encodeTagInput, decodeTagEvent, TAG_KIND, tagGame } from "./src/shared/tag";`,
      ].join("\n"),
      resolveDir: app,
      loader: "ts",
    },
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    outfile: out,
    logLevel: "silent",
  });
  play = (await import(pathToFileURL(out).href)) as Play;

  server = await startWranglerDev({ config: "wrangler.jsonc", root: app, vars: { DEV_MODE: "true" } });
}, 400_000);

afterAll(async () => {
  for (const close of closers) close();
  await server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("starter outside the repository", () => {
  it("installs the packed tarballs: no workspace links, dist entry points, real versions", () => {
    expect(relative(REPO_ROOT, app).startsWith("..")).toBe(true);
    const scope = join(app, "node_modules", "@tikron");
    const installed = readdirSync(scope).sort();
    expect(installed).toEqual(["client", "cloudflare", "core", "protocol"]);
    const seen = new Set<string>();
    for (const name of installed) {
      const real = realpathSync(join(scope, name));
      expect(real.startsWith(realpathSync(tmp) + sep), `${name} resolves to ${real}`).toBe(true);
      seen.add(real);
    }
    // Transitive ones too (core → aoi): every @tikron package in the store is inside tmp.
    const store = join(app, "node_modules", ".pnpm");
    const stored = readdirSync(store).filter((d) => d.startsWith("@tikron+"));
    expect(stored.map((d) => d.split("@file")[0]).sort()).toEqual(["@tikron+aoi", "@tikron+client", "@tikron+cloudflare", "@tikron+core", "@tikron+protocol"]);
    for (const d of stored) {
      const pkgDir = join(store, d, "node_modules", "@tikron", d.slice("@tikron+".length).split("@")[0]!);
      const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
        exports: Record<string, { import: string; types: string }>;
        dependencies?: Record<string, string>;
        private?: boolean;
      };
      expect(pkg.private).toBeUndefined();
      for (const file of ["README.md", "LICENSE"]) expect(existsSync(join(pkgDir, file)), `${d} ${file}`).toBe(true);
      for (const [sub, target] of Object.entries(pkg.exports)) {
        expect(target.import, `${d} ${sub}`).toMatch(/^\.\/dist\/.*\.js$/);
        expect(existsSync(join(pkgDir, target.import)), `${d} ${target.import}`).toBe(true);
        expect(existsSync(join(pkgDir, target.types)), `${d} ${target.types}`).toBe(true);
      }
      for (const range of Object.values(pkg.dependencies ?? {})) expect(range).not.toMatch(/^workspace:/);
    }
    // The D1 schema of room records ships with the adapter that writes them.
    expect(existsSync(join(scope, "cloudflare", "migrations", "0001_room_records.sql"))).toBe(true);
  });

  it("its own tests pass (the game on a core Room with a fake clock)", () => {
    expect(testOutput).toMatch(/Tests\s+[1-9]\d* passed/);
    expect(testOutput).not.toMatch(/failed/);
  });

  it("the typed SDK's mistakes fail to compile, each where its @ts-expect-error says", () => {
    // The build compiled test/sdk.types.ts, so every directive there met an error. The other
    // direction: without the directives, each of those lines (and only those) is an error.
    const directive = /^\s*\/\/ @ts-expect-error/;
    const lines = readFileSync(join(app, "test", "sdk.types.ts"), "utf8").split("\n");
    const guarded = lines.flatMap((l, i) => (directive.test(l) ? [i + 1] : []));
    expect(guarded.length).toBeGreaterThanOrEqual(6);
    // Blank the directive lines (line numbers stay), so each error lands on the line after one.
    const unguarded = join(app, "test", "unguarded.types.ts");
    writeFileSync(unguarded, lines.map((l) => (directive.test(l) ? "" : l)).join("\n"));
    const r = spawnSync("pnpm", ["exec", "tsc", "-p", "tsconfig.test.json", "--pretty", "false"], { cwd: app, encoding: "utf8", timeout: 120_000 });
    rmSync(unguarded);
    expect(r.status).not.toBe(0);
    const errorLines = [...r.stdout.matchAll(/^test\/unguarded\.types\.ts\((\d+),\d+\): error/gm)].map((m) => Number(m[1]));
    expect(errorLines).toEqual(guarded.map((n) => n + 1));
    expect(r.stdout.split("\n").filter((l) => /error TS/.test(l) && !l.startsWith("test/unguarded.types.ts"))).toEqual([]);
  });

  it("built: the Worker bundle and a browser bundle without room code", () => {
    expect(existsSync(join(app, "dist", "worker.js"))).toBe(true);
    const client = readFileSync(join(app, "public", "client.js"), "utf8");
    expect(client.length).toBeGreaterThan(1000);
    // Room-core and Cloudflare-only identifiers must not reach the page.
    for (const marker of ["cloudflare:workers", "acceptWebSocket", "SchemaStateEncoder", "TickScheduler"]) {
      expect(client.includes(marker), marker).toBe(false);
    }
  });

  it("plays: join, events, inputs acknowledged and applied, a refused input, state for everyone, a chat request", async () => {
    const base = server!.url;
    const health = (await (await fetch(`${base}/health`)).json()) as { kinds: string[] };
    expect(health.kinds).toEqual([play.TAG_KIND]);

    const mine = { entity: -1, errors: [] as string[] };
    // Ann plays typed by the game's declaration; bob the untyped way, with raw bytes.
    const ann = play.connect(base, { game: play.tagGame, room: "r1", name: "ann" });
    closers.push(() => ann.close());
    ann.on("event", (e) => {
      if (e.body.kind === "youAre") mine.entity = e.body.entity;
    });
    ann.on("error", (e) => mine.errors.push(e.name));
    const bobErrors: string[] = [];
    const bobChats: string[] = [];
    const bob = play.connect(base, { kind: play.TAG_KIND, room: "r1", name: "bob", decoder: play.schemaDecoder(play.tagSchema as never) });
    bob.on("error", (e) => bobErrors.push(e.name));
    bob.on("event", (e) => {
      const ev = play.decodeTagEvent(e.body);
      if (ev?.kind === "chat") bobChats.push(`${ev.from}: ${ev.text}`);
    });
    closers.push(() => bob.close());
    const [wa, wb] = await Promise.all([ann.whenJoined(), bob.whenJoined()]);
    expect(wa.roomKind).toBe(play.TAG_KIND);
    expect(wb.playerId).not.toBe(wa.playerId);

    const records = (c: { decoder: { state: unknown } }): Map<number, PlayerRecord> => {
      const view = c.decoder.state as { values(): Iterable<{ id: number; record: PlayerRecord }> };
      return new Map([...view.values()].map((e) => [e.id, e.record]));
    };
    await waitFor("both players in both views", () => records(ann).size === 2 && records(bob).size === 2);
    await waitFor("ann's entity id event", () => mine.entity >= 0);
    const annView = records(ann);
    expect(annView.get(mine.entity)?.name).toBe("ann");
    expect([...annView.values()].filter((r) => r.it).length).toBe(1);

    // Steer right: acknowledged, and ann's x grows in bob's view too.
    const x0 = annView.get(mine.entity)!.x;
    const seq = ann.sendInput({ dx: 1, dy: 0 });
    expect(seq).toBeGreaterThan(0);
    await waitFor("the input's ack", () => ann.stats.lastAck >= seq);
    await waitFor("ann moving right in bob's view", () => (records(bob).get(mine.entity)?.x ?? 0) > x0 + 20);
    ann.sendInput({ dx: 0, dy: 0 });

    // A payload the game's codec refuses comes back as bad_input; the connection stays up.
    const badSeq = bob.sendInput(new Uint8Array([0xff, 0xff]));
    await waitFor("bad_input for a 2-byte input", () => bobErrors.includes("bad_input"));
    await waitFor("the refused input's ack", () => bob.stats.lastAck >= badSeq);
    expect(bob.status).toBe("joined");

    // A room message outside the tick, typed by the game's declaration: the room answers the
    // request with how many players heard the line, and bob gets it as a chat event.
    const reply = await ann.request("chat", { text: "  you're it  " });
    expect(reply).toEqual({ heardBy: 2 });
    await waitFor("ann's chat line in bob's events", () => bobChats.includes("ann: you're it"));
    // Refusals reject the request with the room's error name; neither connection suffers.
    const blank = await ann.request("chat", { text: "   " }).catch((e: unknown) => e);
    expect(blank).toMatchObject({ name: "RequestError", code: "bad_message" });
    const unknown = await bob.request("dance", {}).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ name: "RequestError", code: "unknown_message" });
    expect([ann.status, bob.status]).toEqual(["joined", "joined"]);
    expect(mine.errors).toEqual([]);
  });

  it("reconnects into the held seat after a dropped socket", async () => {
    const sockets: WebSocket[] = [];
    class TrackedWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
      }
    }
    let entity = -1;
    const carl = play.connect(server!.url, {
      kind: play.TAG_KIND,
      room: "r2",
      name: "carl",
      WebSocketImpl: TrackedWebSocket,
      decoder: play.schemaDecoder(play.tagSchema as never, { decodeEvent: play.decodeTagEvent }),
    });
    closers.push(() => carl.close());
    carl.on("event", (e) => {
      const ev = e.body as ReturnType<Play["decodeTagEvent"]>;
      if (ev?.kind === "youAre") entity = ev.entity;
    });
    const first = await carl.whenJoined();
    await waitFor("carl's entity id", () => entity >= 0);
    const before = entity;
    entity = -1;
    const rejoined = new Promise<{ playerId: number; reconnected: boolean }>((resolve) => {
      carl.on("welcome", (w) => resolve(w));
    });
    const reconnecting = new Promise<number>((resolve) => carl.on("reconnecting", (r) => resolve(r.attempt)));

    // The network drops the socket (not a deliberate close of the connection).
    expect(sockets.length).toBe(1);
    sockets[0]!.close(3000, "simulated drop");
    expect(await reconnecting).toBe(1);
    const second = await rejoined;
    expect(second).toMatchObject({ playerId: first.playerId, reconnected: true });
    expect(sockets.length).toBe(2);
    // A fresh baseline: the held entity comes back, and the room tells carl which one it is.
    await waitFor("carl's entity after the reconnect", () => entity >= 0);
    expect(entity).toBe(before);
    const view = carl.decoder.state as { get(id: number): { record: PlayerRecord } | undefined };
    await waitFor("carl in his own view", () => view.get(entity)?.record.name === "carl");
    expect(carl.stats.reconnects).toBe(1);
  });
});
