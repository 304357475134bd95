// The page's bundle, defined once: src/client/main.ts (and what it imports) into public/client.js.
// `node scripts/page.mjs` builds it minified (`npm run build`, `npm run deploy`); scripts/dev.mjs
// rebuilds it on every change. Plain JavaScript: it runs before anything is compiled.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

/** The project's root directory (this file's parent's parent). */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** esbuild options of the page's bundle. */
export const PAGE = {
  absWorkingDir: ROOT,
  entryPoints: ["src/client/main.ts"],
  outfile: "public/client.js",
  bundle: true,
  format: "esm",
  platform: "browser",
  sourcemap: true,
  logLevel: "warning",
};

if (process.argv[1] === fileURLToPath(import.meta.url)) await build({ ...PAGE, minify: true });
