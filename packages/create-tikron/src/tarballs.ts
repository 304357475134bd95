/**
 * Packed `@tikron/*` tarballs (`npm run pack -- <dir>` in the repository) as the source of a new
 * project's packages, before they are on the registry. Every tarball a project needs is found
 * and read before anything is written, so a directory that lacks one is refused with its name
 * instead of an install that 404s on it later.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";

/** What the scaffold reads from a packed package's package.json. */
export interface PackedManifest {
  /** The package name, e.g. `@tikron/core`. */
  name: string;
  /** Its version, e.g. `0.1.0`. */
  version: string;
  /** Its runtime dependencies by name (empty when it has none). */
  dependencies: Record<string, string>;
}

const BLOCK = 512;

/**
 * The contents of one file in a gzipped tar archive, or undefined when it has no such file.
 * Reads ustar names (with their prefix field) and skips every other entry by its size, so GNU
 * long-name and pax header entries before the file do not confuse it.
 */
export function readTarEntry(archive: Uint8Array, path: string): Uint8Array | undefined {
  const tar = gunzipSync(archive);
  let at = 0;
  while (at + BLOCK <= tar.length) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return undefined; // end-of-archive marker
    const name = field(header, 0, 100);
    const prefix = header[257] === 0x75 /* "u" of ustar */ ? field(header, 345, 155) : "";
    const sizeText = field(header, 124, 12).trim();
    const size = sizeText === "" ? 0 : Number.parseInt(sizeText, 8);
    if (!Number.isFinite(size) || size < 0) throw new Error(`corrupt tar header at byte ${at} (size "${sizeText}")`);
    const type = String.fromCharCode(header[156]!);
    const fullName = prefix === "" ? name : `${prefix}/${name}`;
    const data = at + BLOCK;
    if ((type === "0" || type === "\0") && fullName === path) return new Uint8Array(tar.buffer, tar.byteOffset + data, size);
    at = data + Math.ceil(size / BLOCK) * BLOCK;
  }
  return undefined;
}

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
}

/** The package.json of a packed package (`npm pack` / `pnpm pack` put it at `package/package.json`). */
export function readPackedManifest(file: string): PackedManifest {
  let entry: Uint8Array | undefined;
  try {
    entry = readTarEntry(readFileSync(file), "package/package.json");
  } catch (e) {
    throw new Error(`${file} is not a packed package (${(e as Error).message})`);
  }
  if (!entry) throw new Error(`${file} is not a packed package: it has no package/package.json`);
  const m = JSON.parse(new TextDecoder().decode(entry)) as Partial<PackedManifest>;
  if (typeof m.name !== "string" || typeof m.version !== "string") throw new Error(`${file}: its package.json has no name or version`);
  return { name: m.name, version: m.version, dependencies: m.dependencies ?? {} };
}

/** The file name `npm pack` and `pnpm pack` give a package: `@tikron/core` 0.1.0 → `tikron-core-0.1.0.tgz`. */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/**
 * The tarballs in `dir` for `wanted` (package names) and every `@tikron/*` package they depend
 * on, all at `version`: name → absolute path. Throws naming the first one missing (and what the
 * directory holds instead) or whose manifest disagrees with its file name.
 */
export function localTikronPackages(dir: string, wanted: readonly string[], version: string): Record<string, string> {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new Error(`--packages ${dir}: no such directory (make it with \`npm run pack -- ${dir}\` in the Tikron repository)`);
  const found: Record<string, string> = {};
  const queue = [...wanted];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (found[name]) continue;
    const file = join(root, tarballName(name, version));
    if (!existsSync(file)) {
      const there = readdirSync(root).filter((f) => f.endsWith(".tgz"));
      throw new Error(
        `--packages ${dir}: ${tarballName(name, version)} (${name} ${version}) is missing; the directory holds ${there.length > 0 ? there.join(", ") : "no tarballs"}. ` +
          `Pack this version again with \`npm run pack -- ${dir}\` in the Tikron repository.`,
      );
    }
    const manifest = readPackedManifest(file);
    if (manifest.name !== name || manifest.version !== version) throw new Error(`${file} holds ${manifest.name} ${manifest.version}, not ${name} ${version}`);
    found[name] = file;
    for (const dep of Object.keys(manifest.dependencies)) if (dep.startsWith("@tikron/")) queue.push(dep);
  }
  return found;
}
