/**
 * Makes a new game project from the template: checks everything first (an empty or new
 * directory, a usable name, the tarballs when `packages` is given), then copies the template and
 * names the project. Nothing is written when a check fails.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { localTikronPackages } from "./tarballs";
import { unpackTemplate } from "./template";

/** What {@link scaffold} is asked to make. */
export interface ScaffoldOptions {
  /** The new project's directory: missing or empty. Its last segment names the project. */
  directory: string;
  /** The packed template (the package's `template/`). */
  template: string;
  /**
   * A directory of packed `@tikron/*` tarballs: the project depends on them as `file:` paths
   * (and overrides the packages' own `@tikron/*` dependencies with them). Without it the project
   * depends on the registry version the template pins.
   */
  packages?: string;
}

/** What {@link scaffold} made. */
export interface ScaffoldResult {
  /** Absolute path of the project. */
  directory: string;
  /** The project's package and Worker name. */
  name: string;
  /** The `@tikron/*` version the project uses. */
  version: string;
  /** The tarballs' directory (absolute) when the project installs from them; undefined for the registry. */
  packages: string | undefined;
  /** Package name → tarball path, when the project installs from tarballs; empty for the registry. */
  tarballs: Record<string, string>;
}

interface Manifest {
  name: string;
  dependencies: Record<string, string>;
  overrides?: Record<string, string>;
  [field: string]: unknown;
}

/** The starter's Worker name line in wrangler.jsonc, which the project's name replaces. */
const WORKER_NAME = /^(\s*"name":\s*)"[^"]*"(,?)$/m;

/**
 * A package and Worker name from a directory name: lower case, runs of anything but letters and
 * digits become one dash, at most 63 characters (a Worker name's limit). Undefined when nothing
 * is left.
 */
export function projectName(directoryName: string): string | undefined {
  const name = directoryName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 63)
    .replace(/^-+|-+$/g, "");
  return name === "" ? undefined : name;
}

/** Makes the project; throws, having written nothing, when the directory, its name or the tarballs will not do. */
export function scaffold(options: ScaffoldOptions): ScaffoldResult {
  const directory = resolve(options.directory);
  if (existsSync(directory)) {
    if (!statSync(directory).isDirectory()) throw new Error(`${directory} is a file; name a new directory`);
    if (readdirSync(directory).length > 0) throw new Error(`${directory} is not empty; name a new or empty directory`);
  }
  const name = projectName(basename(directory));
  if (!name) throw new Error(`"${basename(directory)}" gives no project name: name the directory with letters or digits`);

  const manifest = JSON.parse(readFileSync(join(options.template, "package.json"), "utf8")) as Manifest;
  const tikron = Object.keys(manifest.dependencies).filter((dep) => dep.startsWith("@tikron/"));
  const versions = new Set(tikron.map((dep) => manifest.dependencies[dep]));
  if (tikron.length === 0 || versions.size !== 1) throw new Error(`the template's package.json must pin one @tikron/* version; it has ${[...versions].join(", ") || "none"}`);
  const version = [...versions][0]!;
  const tarballs = options.packages === undefined ? {} : localTikronPackages(options.packages, tikron, version);
  const wrangler = readFileSync(join(options.template, "wrangler.jsonc"), "utf8");
  if (!WORKER_NAME.test(wrangler)) throw new Error(`the template's wrangler.jsonc has no "name" line to rename`);

  unpackTemplate(options.template, directory);
  manifest.name = name;
  if (options.packages !== undefined) {
    // The same spec in both places: npm refuses an override that differs from a direct
    // dependency's, and without the override the packages' own @tikron deps go to the registry.
    const spec = (dep: string) => `file:${tarballs[dep]}`;
    for (const dep of tikron) manifest.dependencies[dep] = spec(dep);
    manifest.overrides = Object.fromEntries(Object.keys(tarballs).sort().map((dep) => [dep, spec(dep)]));
  }
  writeFileSync(join(directory, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(directory, "wrangler.jsonc"), wrangler.replace(WORKER_NAME, `$1"${name}"$2`));
  return { directory, name, version, packages: options.packages === undefined ? undefined : resolve(options.packages), tarballs };
}
