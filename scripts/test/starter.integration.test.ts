/**
 * The game developer's path, end to end: every published package is built and packed, and
 * `create-tikron` is run from its tarball the way the docs say (`npx --package <tgz>
 * create-tikron my-game --packages <dir>`), with the machine's own Node rather than the
 * repository's toolchain, OUTSIDE the repository. The project it makes installs those tarballs
 * with npm (no workspace links), type-checks and builds, runs its own tests, runs under its own
 * `npm run dev` on loopback (offline: no fetch stack trace; the page rebuilt on an edit; the admin
 * console at `/admin` from `@tikron/admin`), seats `npm run bots -- 10` through the matchmaker,
 * and is played from Node with the installed SDK: join, inputs
 * acknowledged and applied, state, declared events and notices received, a refused input, a room
 * message request answered (and one refused), and a reconnect into the held seat. Its type-only checks of the
 * typed SDK must fail exactly where they say they do; on a Node older than the project's
 * `engines`, the scaffold says so in one line first, `npm install` installs nothing and
 * `npm run dev` stops with the same line.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupMembers, REPO_ROOT, startWranglerDev, type WranglerDevServer } from "../../tools/devserver/src/wranglerDev";
import { packPackages, type PackedTarballs } from "../pack-packages";

// Types only: at run time these come from the project's own install of the tarballs.
type Client = typeof import("../../packages/client/src/index");
type Protocol = typeof import("../../packages/protocol/src/index");
type Starter = typeof import("../../examples/starter/src/shared/tag");

/** What the test imports from the project's own install (bundled with packages left external). */
interface Play {
  connect: Client["connect"];
  withMessages: Client["withMessages"];
  errorName: Client["errorName"];
  matchmaker: Client["matchmaker"];
  schemaDecoder: Client["schemaDecoder"];
  BinaryWriter: Protocol["BinaryWriter"];
  tagSchema: { hash: number };
  encodeTagInput(w: InstanceType<Protocol["BinaryWriter"]>, input: { dx: -1 | 0 | 1; dy: -1 | 0 | 1 }): Uint8Array;
  TAG_KIND: string;
  tagGame: Starter["tagGame"];
  CONSOLE_FILES: readonly ConsoleFile[];
}

type ConsoleFile = (typeof import("../../packages/admin/src/index"))["CONSOLE_FILES"][number];

interface PlayerRecord {
  x: number;
  y: number;
  it: boolean;
  tags: number;
  name: string;
}

let tmp = "";
let packs = "";
let app = "";
let tarballs: PackedTarballs = {};
let server: WranglerDevServer | undefined;
let play: Play;
let testOutput = "";
let scaffoldOutput = "";
/**
 * The machine's own Node, as a new user has it: its version, what the project's Node check says to
 * it, and what its `npm install` did (run only when that Node is too old).
 */
const stock = { version: "", scaffolded: [] as string[], check: { status: 0 as number | null, stderr: "" }, install: { status: 0 as number | null, stderr: "", wrote: [] as string[] } };
const closers: (() => void)[] = [];
/** The admin API's token of the project's dev server (its console asks for it). */
const ADMIN_TOKEN = "starter-admin-token-0123456789abcdef";
/** What `npm run dev` printed before anything else ran against it. */
let devStartOutput = "";

/** PATH without anything inside the repository (its pinned Node 22 and its node_modules/.bin). */
const STOCK_PATH = (process.env.PATH ?? "")
  .split(delimiter)
  .filter((dir) => dir !== "" && !resolve(dir).startsWith(REPO_ROOT + sep))
  .join(delimiter);

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 180_000, env: { ...process.env, CI: "true", ...env } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}) in ${cwd}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * A command run while the project's server is up: asynchronously, because a test process blocked
 * in spawnSync for longer than the server keeps an idle connection open (~15 s) cannot see it
 * close, and its next fetch reuses the dead socket ("other side closed").
 */
function runWhileServing(cmd: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"], timeout: options.timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", fail);
    child.once("close", (status) => done({ status, stdout, stderr }));
  });
}

async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tikron-starter-"));
  packs = join(tmp, "packs");
  tarballs = packPackages(packs);

  // The machine's own Node and npx run the scaffold (Node 20 here: create-tikron must not need
  // the project's Node). A private npm cache keeps npx's copy of create-tikron out of ~/.npm.
  const stockEnv = { PATH: STOCK_PATH, npm_config_cache: join(tmp, "npx-cache") };
  stock.version = run("node", ["--version"], tmp, stockEnv).trim().replace(/^v/, "");
  scaffoldOutput = run("npx", ["--yes", "--package", tarballs["create-tikron"]!, "create-tikron", "my-game", "--packages", packs], tmp, stockEnv);
  app = join(tmp, "my-game");
  stock.scaffolded = readdirSync(app);
  const check = spawnSync("node", [join(app, "scripts", "check-node.mjs")], { cwd: app, encoding: "utf8", env: { ...process.env, ...stockEnv } });
  stock.check = { status: check.status, stderr: check.stderr.trim() };
  if (check.status !== 0) {
    // The step after the scaffold, on that Node: it must stop before writing anything.
    const before = new Set(stock.scaffolded);
    const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: app, encoding: "utf8", timeout: 120_000, env: { ...process.env, ...stockEnv, CI: "true" } });
    stock.install = { status: install.status, stderr: install.stderr, wrote: readdirSync(app).filter((f) => !before.has(f)) };
  }

  // From here on the project's Node (the toolchain's 22), with npm as the docs say.
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], app);
  run("npm", ["run", "build"], app);
  testOutput = run("npm", ["test"], app).replace(/\u001b\[[0-9;]*m/g, "");

  const out = join(app, "play.mjs");
  await build({
    stdin: {
      contents: [
        `export { connect, errorName, matchmaker, schemaDecoder, withMessages } from "@tikron/client";`,
        `export { BinaryWriter } from "@tikron/protocol";`,
        `export { tagSchema, encodeTagInput, TAG_KIND, tagGame } from "./src/shared/tag";`,
        `export { CONSOLE_FILES } from "@tikron/admin";`,
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

  // The project's own `npm run dev` (DEV_MODE comes from it), as a developer starts it, with
  // the one difference that matters here made certain: no route to workers.cloudflare.com, even
  // on a machine that has one (a proxy that refuses), and no CLOUDFLARE_CF_FETCH_ENABLED from
  // this process's environment.
  server = await startWranglerDev({
    config: "wrangler.jsonc",
    root: app,
    command: ["npm", "run", "dev", "--"],
    vars: { ADMIN_TOKEN },
    env: { CLOUDFLARE_CF_FETCH_ENABLED: undefined, HTTPS_PROXY: "http://127.0.0.1:9", https_proxy: undefined },
  });
  devStartOutput = server.output();
}, 400_000);

afterAll(async () => {
  for (const close of closers) close();
  await server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("a project made by create-tikron, outside the repository", () => {
  it("create-tikron made the project outside the repository, named after its directory, on the machine's own Node", () => {
    expect(relative(REPO_ROOT, app).startsWith("..")).toBe(true);
    expect(scaffoldOutput).toContain(`Made my-game in ${app}`);
    expect(scaffoldOutput).toMatch(/cd my-game\n\s+npm install\n/);
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { name: string };
    expect(manifest.name).toBe("my-game");
    expect(readFileSync(join(app, "wrangler.jsonc"), "utf8")).toMatch(/^\s*"name": "my-game",$/m);
    expect(existsSync(join(app, ".gitignore"))).toBe(true);
    expect(readFileSync(join(app, "README.md"), "utf8")).not.toContain("repository-only");
  });

  it("a Node older than the project's engines is told so in one line first by the scaffold; npm install installs nothing; npm run dev stops", async () => {
    if (stock.check.status === 0) {
      // This machine's own Node is new enough: nothing to warn about.
      expect(scaffoldOutput).not.toContain("Before npm install");
      return;
    }
    expect(stock.check.status).toBe(1);
    expect(stock.check.stderr).toMatch(new RegExp(`^This project needs Node \\d+\\.\\d+\\.\\d+ or newer \\(wrangler requires it\\); this is Node ${stock.version.replace(/\./g, "\\.")}\\. Install Node 22`));
    expect(stock.check.stderr.split("\n")).toHaveLength(1);
    expect(scaffoldOutput.split("\n")[0]).toBe(`Before npm install: ${stock.check.stderr}`);
    expect(stock.scaffolded).not.toContain("node_modules");
    // npm refuses the project itself (its .npmrc: engine-strict) before resolving anything.
    const engines = (JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    expect(stock.install.status).not.toBe(0);
    expect(stock.install.stderr).toContain(`Required: {"node":"${engines}"}`);
    expect(stock.install.wrote).toEqual([]);
    const dev = await runWhileServing("npm", ["run", "dev"], { cwd: app, timeoutMs: 60_000, env: { ...process.env, PATH: STOCK_PATH } });
    expect(dev.status).not.toBe(0);
    expect(dev.stderr).toContain(stock.check.stderr);
    expect(dev.stdout).not.toContain("node scripts/dev.mjs"); // the dev script itself never started
  });

  it("installs the packed tarballs with npm: no workspace links, no registry, dist entry points, real versions", () => {
    const scope = join(app, "node_modules", "@tikron");
    // aoi only through core; npm hoists it next to the others.
    expect(readdirSync(scope).sort()).toEqual(["admin", "aoi", "client", "cloudflare", "core", "protocol"]);
    const lock = JSON.parse(readFileSync(join(app, "package-lock.json"), "utf8")) as { packages: Record<string, { resolved?: string; link?: boolean }> };
    const locked = Object.entries(lock.packages).filter(([path]) => path.includes("node_modules/@tikron/"));
    expect(locked.map(([path]) => path).sort()).toEqual(["admin", "aoi", "client", "cloudflare", "core", "protocol"].map((p) => `node_modules/@tikron/${p}`));
    for (const [path, entry] of locked) {
      expect(entry.link, path).toBeUndefined();
      expect(entry.resolved, path).toMatch(/^file:/);
      expect(resolve(app, entry.resolved!.slice("file:".length)), path).toBe(tarballs[`@tikron/${path.split("/").pop()}`]);
    }
    for (const name of readdirSync(scope)) {
      const pkgDir = join(scope, name);
      const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
        exports: Record<string, { import: string; types: string }>;
        dependencies?: Record<string, string>;
        private?: boolean;
      };
      expect(pkg.private).toBeUndefined();
      for (const file of ["README.md", "LICENSE"]) expect(existsSync(join(pkgDir, file)), `${name} ${file}`).toBe(true);
      for (const [sub, target] of Object.entries(pkg.exports)) {
        expect(target.import, `${name} ${sub}`).toMatch(/^\.\/dist\/.*\.js$/);
        expect(existsSync(join(pkgDir, target.import)), `${name} ${target.import}`).toBe(true);
        expect(existsSync(join(pkgDir, target.types)), `${name} ${target.types}`).toBe(true);
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

  it("the typed SDK's mistakes fail to compile, each where its @ts-expect-error says", async () => {
    // The build compiled test/sdk.types.ts, so every directive there met an error. The other
    // direction: without the directives, each of those lines (and only those) is an error.
    const directive = /^\s*\/\/ @ts-expect-error/;
    const lines = readFileSync(join(app, "test", "sdk.types.ts"), "utf8").split("\n");
    const guarded = lines.flatMap((l, i) => (directive.test(l) ? [i + 1] : []));
    expect(guarded.length).toBeGreaterThanOrEqual(6);
    // Blank the directive lines (line numbers stay), so each error lands on the line after one.
    const unguarded = join(app, "test", "unguarded.types.ts");
    writeFileSync(unguarded, lines.map((l) => (directive.test(l) ? "" : l)).join("\n"));
    const r = await runWhileServing(join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.test.json", "--pretty", "false"], { cwd: app, timeoutMs: 120_000 });
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

  it("npm run dev serves the project in DEV_MODE with no fetch stack trace, offline", async () => {
    // The condition is real: wrangler saw the refusing proxy, so a cf.json fetch would have failed.
    expect(devStartOutput).toContain("Proxy environment variables detected");
    expect(devStartOutput).toContain("[watch] build finished"); // the page, bundled by the dev script
    for (const noise of ["Request.cf", "workers.cloudflare.com", "ECONNREFUSED"]) expect(server!.output(), noise).not.toContain(noise);
    expect((await fetch(`${server!.url}/`)).status).toBe(200);
  });

  it("serves the admin console at /admin from @tikron/admin, with its script and stylesheet, on the admin API", async () => {
    const base = server!.url;
    const served = new Map<string, { status: number; type: string | null; body: string }>();
    for (const path of ["/admin", "/admin/console.css", "/admin/console.js"]) {
      const res = await fetch(`${base}${path}`);
      served.set(path, { status: res.status, type: res.headers.get("content-type"), body: await res.text() });
    }
    // Each file is what the installed package holds (node_modules, not a copy in the project).
    expect(play.CONSOLE_FILES.map((f) => f.path).sort()).toEqual([...served.keys()].sort());
    for (const file of play.CONSOLE_FILES) expect(served.get(file.path), file.path).toEqual({ status: 200, type: file.contentType, body: file.body });
    expect(served.get("/admin")!.body).toContain(`href="/admin/console.css"`);
    expect(served.get("/admin")!.body).toContain(`src="/admin/console.js"`);
    expect(existsSync(join(app, "public", "admin.html"))).toBe(false);
    // The API the page calls: refused without the token, answered with it.
    expect((await fetch(`${base}/admin/api/rooms`)).status).toBe(401);
    const rooms = await fetch(`${base}/admin/api/rooms`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(rooms.status).toBe(200);
  });

  it("npm run bots -- 10 seats ten bots through the matchmaker, 8 + 2 in 8-seat rooms, that play until Ctrl-C and then leave", async () => {
    const rooms = async () => {
      const res = await fetch(`${server!.url}/admin/api/rooms`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return ((await res.json()) as { rooms: { kind: string; roomId: string; clients: number; bots: number; maxClients: number }[] }).rooms;
    };
    const seatCounts = async () => (await rooms()).map((r) => r.clients).sort((a, b) => a - b);
    expect(await seatCounts()).toEqual([]); // nobody else in a room the matchmaker could pick

    let output = "";
    const bots: ChildProcess = spawn("npm", ["run", "bots", "--", "10", "--url", server!.url], { cwd: app, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "true" } });
    const exited = new Promise<[number | null, string | null]>((done) => bots.once("exit", (code, signal) => done([code, signal])));
    closers.push(() => {
      if (bots.exitCode === null && bots.signalCode === null) process.kill(-bots.pid!, "SIGKILL");
    });
    bots.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    bots.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitFor("the bots' seated line", () => /bots: 10 playing at /.test(output) || (bots.exitCode !== null && `exited: ${output}`), 60_000);
    expect(output).toMatch(/bots: 10 playing at \S+ in \S+ \(8\), \S+ \(2\); Ctrl-C stops them/);

    // As the matchmaker's rooms report them: players, not server bots; 8 + 2, and still so later.
    const settled = await waitFor("8 + 2 seats in the room list", async () => ((await seatCounts()).join() === "2,8" ? true : undefined), 15_000);
    expect(settled).toBe(true);
    const listed = await rooms();
    expect(listed.map((r) => [r.kind, r.maxClients, r.bots])).toEqual([
      ["tag", 8, 0],
      ["tag", 8, 0],
    ]);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await seatCounts()).toEqual([2, 8]);
    expect(bots.exitCode).toBeNull();
    // They play: inputs applied on (nearly) every seat. A bot sends only when its steering
    // changes, and a wanderer may stand still for a while.
    const seats = [];
    for (const r of listed) {
      const detail = (await (await fetch(`${server!.url}/admin/api/rooms/tag/${r.roomId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { seats: { name: string; lastSeq: number; connected: boolean }[] };
      seats.push(...detail.seats);
    }
    expect(seats.map((x) => x.name).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `bot${i + 1}`).sort());
    expect(seats.every((x) => x.connected)).toBe(true);
    expect(seats.filter((x) => x.lastSeq > 0).length).toBeGreaterThanOrEqual(8);

    // Ctrl-C (SIGINT to its process group, as a terminal sends it): every bot leaves, seats freed at once.
    // npm itself ends by the signal once its script has exited; the script ends on its own.
    process.kill(-bots.pid!, "SIGINT");
    expect([[0, null], [null, "SIGINT"]]).toContainEqual(await exited);
    expect(output).toContain("bots: 10 left");
    expect(output).not.toMatch(/found no seat|is out:/);
    await waitFor("nothing of npm run bots left running", () => groupMembers(bots.pid!).length === 0, 5_000);
    await waitFor("the bots' seats freed", async () => ((await seatCounts()).every((n) => n === 0) ? true : undefined), 10_000);
  });

  it("plays: join, events, inputs acknowledged and applied, a refused input, state for everyone, a chat request and its notice", async () => {
    const base = server!.url;
    const health = (await (await fetch(`${base}/health`)).json()) as { kinds: string[] };
    expect(health.kinds).toEqual([play.TAG_KIND]);

    const mine = { entity: -1, errors: [] as string[] };
    // Ann plays typed by the game's declaration; bob the untyped way, with raw bytes (his
    // schemaDecoder still reads the schema's declared events).
    const ann = play.withMessages(play.connect(base, { game: play.tagGame, room: "r1", name: "ann" }));
    closers.push(() => ann.close());
    ann.on("event", (e) => {
      if (e.body.kind === "youAre") mine.entity = e.body.entity;
    });
    ann.on("error", (e) => mine.errors.push(e.name ?? play.errorName(e.code)));
    const bobErrors: string[] = [];
    const bobChats: string[] = [];
    const bob = play.withMessages(play.connect(base, { kind: play.TAG_KIND, room: "r1", name: "bob", decoder: play.schemaDecoder(play.tagSchema as never) }));
    bob.on("error", (e) => bobErrors.push(e.name ?? play.errorName(e.code)));
    const bobEvents: unknown[] = [];
    bob.on("event", (e) => bobEvents.push(e.body));
    bob.on("notice", (n) => {
      const line = n.data as { from: string; text: string };
      if (n.type === "chat") bobChats.push(`${line.from}: ${line.text}`);
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
    await waitFor("bob's entity id event", () => bobEvents.length > 0);
    expect(bobEvents[0]).toEqual({ kind: "youAre", entity: expect.any(Number) });
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
    // request with how many players heard the line, and bob gets it as a chat notice.
    const reply = await ann.request("chat", { text: "  you're it  " });
    expect(reply).toEqual({ heardBy: 2 });
    await waitFor("ann's chat line in bob's notices", () => bobChats.includes("ann: you're it"));
    // Refusals reject the request with the room's error name; neither connection suffers.
    const blank = await ann.request("chat", { text: "   " }).catch((e: unknown) => e);
    expect(blank).toMatchObject({ name: "RequestError", code: "bad_message" });
    const unknown = await bob.request("dance", {}).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ name: "RequestError", code: "unknown_message" });
    expect([ann.status, bob.status]).toEqual(["joined", "joined"]);
    expect(mine.errors).toEqual([]);
  });

  it("finds a room through the matchmaker: two players land in the same room, which the room list shows", async () => {
    const mm = play.matchmaker(server!.url);
    const mia = await mm.joinOrCreate(play.tagGame, { name: "mia" });
    closers.push(() => mia.close());
    const ned = await mm.joinOrCreate(play.tagGame, { name: "ned" });
    closers.push(() => ned.close());
    expect([mia.status, ned.status]).toEqual(["joined", "joined"]);
    expect(ned.room).toBe(mia.room);
    const listed = await mm.getAvailableRooms(play.TAG_KIND);
    expect(listed.find((r) => r.roomId === mia.room)?.clients).toBeGreaterThanOrEqual(2);
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
      decoder: play.schemaDecoder(play.tagSchema as never),
    });
    closers.push(() => carl.close());
    carl.on("event", (e) => {
      const ev = e.body as { kind: string; entity?: number };
      if (ev.kind === "youAre") entity = ev.entity!;
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

  // Last: wrangler reloads the Worker when the page's bundle changes, which restarts its rooms.
  it("rebuilds the page on an edit, without a restart of npm run dev", async () => {
    const main = join(app, "src", "client", "main.ts");
    const source = readFileSync(main, "utf8");
    const marker = `rebuilt-${Date.now()}`;
    expect(await (await fetch(`${server!.url}/client.js`)).text()).not.toContain(marker);
    writeFileSync(main, `${source}\nconsole.info("${marker}");\n`);
    try {
      await waitFor("the edit in the served page", async () => ((await (await fetch(`${server!.url}/client.js`)).text()).includes(marker) ? true : undefined), 20_000);
    } finally {
      writeFileSync(main, source);
    }
    expect((await fetch(`${server!.url}/health`)).status).toBe(200);
  });
});
