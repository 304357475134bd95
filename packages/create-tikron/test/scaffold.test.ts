import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectName, scaffold } from "../src/scaffold";
import { packTemplate } from "../src/template";
import { packedPackage } from "./support";

const STARTER = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples", "starter");
const starterManifest = JSON.parse(readFileSync(join(STARTER, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const VERSION = starterManifest.dependencies["@tikron/core"]!;

let root = "";
let template = "";
let packs = "";

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "create-tikron-scaffold-"));
  template = join(root, "template");
  packTemplate(STARTER, template);
  // The dependency shape of the real packages: core needs protocol and aoi; the rest need core or protocol.
  packs = join(root, "packs");
  mkdirSync(packs);
  packedPackage(packs, "@tikron/protocol", VERSION);
  packedPackage(packs, "@tikron/aoi", VERSION);
  packedPackage(packs, "@tikron/core", VERSION, { "@tikron/protocol": VERSION, "@tikron/aoi": VERSION });
  packedPackage(packs, "@tikron/cloudflare", VERSION, { "@tikron/protocol": VERSION, "@tikron/core": VERSION });
  packedPackage(packs, "@tikron/client", VERSION, { "@tikron/protocol": VERSION });
  packedPackage(packs, "@tikron/admin", VERSION);
  packedPackage(packs, "@tikron/node", VERSION, { "@tikron/core": VERSION, ws: "8.23.0" });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Manifest {
  name: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  overrides?: Record<string, string>;
  engines: { node: string };
}
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

describe("projectName", () => {
  it.each([
    ["my-game", "my-game"],
    ["My Game!", "my-game"],
    ["__Tag__2__", "tag-2"],
    ["x".repeat(80), "x".repeat(63)],
  ])("%s → %s", (dir, name) => expect(projectName(dir)).toBe(name));

  it("gives nothing for a name without letters or digits", () => {
    expect(projectName("---")).toBeUndefined();
  });
});

describe("scaffold", () => {
  it("from tarballs: file: dependencies and overrides for every @tikron package, the project named", () => {
    const made = scaffold({ directory: join(root, "My Game"), template, packages: packs });
    expect(made).toMatchObject({ name: "my-game", version: VERSION, packages: packs });
    const m = manifestOf(made.directory);
    expect(m.name).toBe("my-game");
    const spec = (short: string) => `file:${join(packs, `tikron-${short}-${VERSION}.tgz`)}`;
    expect(m.dependencies).toEqual({
      "@tikron/admin": spec("admin"),
      "@tikron/client": spec("client"),
      "@tikron/cloudflare": spec("cloudflare"),
      "@tikron/core": spec("core"),
      "@tikron/protocol": spec("protocol"),
    });
    // aoi only through core; @tikron/node is in the directory but nothing here needs it.
    expect(m.overrides).toEqual({
      "@tikron/admin": spec("admin"),
      "@tikron/aoi": spec("aoi"),
      "@tikron/client": spec("client"),
      "@tikron/cloudflare": spec("cloudflare"),
      "@tikron/core": spec("core"),
      "@tikron/protocol": spec("protocol"),
    });
    expect(m.devDependencies).toEqual(starterManifest.devDependencies);
    expect(readFileSync(join(made.directory, "wrangler.jsonc"), "utf8")).toMatch(/^\s*"name": "my-game",$/m);
    expect(readFileSync(join(made.directory, "wrangler.jsonc"), "utf8")).not.toContain("tikron-starter-tag");
    expect(existsSync(join(made.directory, ".gitignore"))).toBe(true);
    expect(existsSync(join(made.directory, "_gitignore"))).toBe(false);
  });

  it("from the registry: the versions the starter pins, no overrides", () => {
    const made = scaffold({ directory: join(root, "reg"), template });
    expect(made.packages).toBeUndefined();
    const m = manifestOf(made.directory);
    expect(m.dependencies).toEqual(starterManifest.dependencies);
    expect(m.overrides).toBeUndefined();
  });

  it("into an empty directory that exists", () => {
    mkdirSync(join(root, "empty"));
    expect(scaffold({ directory: join(root, "empty"), template }).name).toBe("empty");
  });

  it("writes nothing when the directory is taken, unnamed, or a tarball is missing", () => {
    const taken = join(root, "taken");
    mkdirSync(taken);
    writeFileSync(join(taken, "notes.txt"), "mine");
    expect(() => scaffold({ directory: taken, template })).toThrow(/taken is not empty/);
    expect(readdirSync(taken)).toEqual(["notes.txt"]);

    expect(() => scaffold({ directory: join(root, "___"), template })).toThrow(/gives no project name/);
    expect(existsSync(join(root, "___"))).toBe(false);

    const partial = join(root, "partial-packs");
    mkdirSync(partial);
    packedPackage(partial, "@tikron/client", VERSION, { "@tikron/protocol": VERSION });
    packedPackage(partial, "@tikron/protocol", VERSION);
    packedPackage(partial, "@tikron/admin", VERSION);
    expect(() => scaffold({ directory: join(root, "no-core"), template, packages: partial })).toThrow(/tikron-cloudflare-.*is missing/);
    expect(existsSync(join(root, "no-core"))).toBe(false);
  });
});

describe("the project's Node check (scripts/check-node.mjs, run by npm install, dev, build, deploy)", () => {
  const project = () => scaffold({ directory: join(mkdtempSync(join(root, "node-")), "game"), template }).directory;
  const check = (dir: string, engines: string) => {
    const m = manifestOf(dir);
    m.engines.node = engines;
    writeFileSync(join(dir, "package.json"), JSON.stringify(m));
    return spawnSync(process.execPath, [join(dir, "scripts", "check-node.mjs")], { encoding: "utf8" });
  };

  it("the npm scripts that need wrangler or Node 22, and install, run it first; npm itself refuses the install on an older Node", () => {
    const dir = project();
    const scripts = (manifestOf(dir) as unknown as { scripts: Record<string, string> }).scripts;
    for (const hook of ["preinstall", "predev", "prebuild", "predeploy", "prebots"]) expect(scripts[hook], hook).toBe("node scripts/check-node.mjs");
    // npm runs a project's own preinstall only after installing; engine-strict stops it before.
    expect(readFileSync(join(dir, ".npmrc"), "utf8")).toMatch(/^engine-strict=true$/m);
  });

  it("passes on this Node when the project asks for it or older, at any position of the version", () => {
    const [major, minor, patch] = process.versions.node.split(".").map(Number) as [number, number, number];
    const dir = project();
    for (const wanted of [`${major}.${minor}.${patch}`, `${major}.0.0`, `${major - 1}.99.99`, `${major}.${minor}.0`]) {
      const r = check(dir, `>=${wanted}`);
      expect([r.status, r.stderr], wanted).toEqual([0, ""]);
    }
  });

  it("stops with one line naming both versions when this Node is older", () => {
    const [major, minor, patch] = process.versions.node.split(".").map(Number) as [number, number, number];
    const dir = project();
    for (const wanted of [`${major + 1}.0.0`, `${major}.${minor + 1}.0`, `${major}.${minor}.${patch + 1}`]) {
      const r = check(dir, `>=${wanted}`);
      expect(r.status, wanted).toBe(1);
      expect(r.stderr.trim().split("\n")).toEqual([
        `This project needs Node ${wanted} or newer (wrangler requires it); this is Node ${process.versions.node}. Install Node 22 LTS (https://nodejs.org, or \`nvm install 22\`) and run the command again.`,
      ]);
    }
  });

  it("refuses an engines range it cannot read instead of passing it", () => {
    const r = check(project(), "^22");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`"engines.node" must read ">=X.Y.Z"; it reads "^22"`);
  });
});
