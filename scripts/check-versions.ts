/**
 * The published packages move together: one version for all of them, `workspace:*` between them,
 * and the starter depending on exactly that version. The starter also asks for the Node its
 * wrangler asks for (its `engines.node` is what its install and dev scripts check). Prints every
 * disagreement; exits 1 if any.
 *
 *   tsx scripts/check-versions.ts
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PUBLISHED_PACKAGES } from "./lib/packages";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function read(path: string): Manifest {
  return JSON.parse(readFileSync(join(ROOT, path), "utf8")) as Manifest;
}

/** Every rule the package manifests break, as sentences; empty when they agree. */
export function versionProblems(): string[] {
  const problems: string[] = [];
  const manifests = PUBLISHED_PACKAGES.map((p) => ({ path: `packages/${p}/package.json`, m: read(`packages/${p}/package.json`) }));
  const version = manifests[0]!.m.version;
  const published = new Set(manifests.map(({ m }) => m.name));
  for (const { path, m } of manifests) {
    if (m.version !== version) problems.push(`${path}: version ${m.version}, but ${manifests[0]!.path} has ${version}`);
    if (m.private) problems.push(`${path}: "private": true would stop it from being published`);
    if (m.license !== "MIT") problems.push(`${path}: license is ${m.license ?? "missing"}, expected MIT`);
    for (const [dep, range] of Object.entries(m.dependencies ?? {})) {
      if (dep.startsWith("@tikron/") && !published.has(dep)) problems.push(`${path}: depends on unpublished ${dep}`);
      if (dep.startsWith("@tikron/") && range !== "workspace:*") problems.push(`${path}: ${dep} is "${range}", expected "workspace:*"`);
    }
  }
  const starter = read("examples/starter/package.json");
  for (const [dep, range] of Object.entries({ ...starter.dependencies, ...starter.devDependencies })) {
    if (!dep.startsWith("@tikron/")) continue;
    if (!published.has(dep)) problems.push(`examples/starter/package.json: ${dep} is not a published package`);
    else if (range !== version) problems.push(`examples/starter/package.json: ${dep} is "${range}", expected "${version}"`);
  }
  const wrangler = JSON.parse(readFileSync(createRequire(join(ROOT, "package.json")).resolve("wrangler/package.json"), "utf8")) as Manifest;
  if (starter.devDependencies?.wrangler !== wrangler.version) {
    problems.push(`examples/starter/package.json: wrangler is "${starter.devDependencies?.wrangler}", the workspace's is "${wrangler.version}"`);
  } else if (starter.engines?.node !== wrangler.engines?.node) {
    problems.push(`examples/starter/package.json: engines.node is "${starter.engines?.node}", wrangler ${wrangler.version} needs "${wrangler.engines?.node}"`);
  }
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problems = versionProblems();
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log("package versions agree");
}
