import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Sources import siblings without extensions (`./room`), which bundlers, vitest and wrangler
 * resolve but Node's ESM loader and `moduleResolution: "NodeNext"` do not. tsc keeps specifiers
 * as written, so after emitting, every relative specifier in dist/ (.js and .d.ts) is made
 * explicit: `./room` → `./room.js`, `./sync` → `./sync/index.js`.
 */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"']*)\2/g;

/** Rewrites the relative specifiers of every emitted file under `distDir`; returns how many changed. */
export function rewriteRelativeSpecifiers(distDir: string): number {
  let changed = 0;
  for (const file of walk(distDir)) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    const text = readFileSync(file, "utf8");
    const out = text.replace(SPECIFIER, (whole, lead: string, quote: string, spec: string) => {
      const fixed = explicitSpecifier(dirname(file), spec);
      if (fixed === spec) return whole;
      changed++;
      return `${lead}${quote}${fixed}${quote}`;
    });
    if (out !== text) writeFileSync(file, out);
  }
  return changed;
}

/** The explicit form of one relative specifier seen from `fromDir`; throws if nothing matches. */
export function explicitSpecifier(fromDir: string, spec: string): string {
  if (/\.(m?js|json)$/.test(spec)) return spec;
  const base = resolve(fromDir, spec);
  if (existsSync(`${base}.js`)) return `${spec}.js`;
  if (existsSync(join(base, "index.js"))) return `${spec.replace(/\/$/, "")}/index.js`;
  throw new Error(`cannot resolve ${spec} from ${fromDir} in the emitted output`);
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
