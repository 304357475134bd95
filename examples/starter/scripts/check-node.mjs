// Stops `npm install`, `npm run dev`, `build` and `deploy` with one line when this Node is older
// than package.json's `engines.node` (wrangler refuses older ones; npm by itself only warns about
// `engines`). Plain JavaScript with no imports but node:fs, so any Node can run it.
import { readFileSync } from "node:fs";

const range = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines?.node ?? "";
const wanted = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(range.trim());
if (!wanted) {
  console.error(`scripts/check-node.mjs: package.json "engines.node" must read ">=X.Y.Z"; it reads "${range}"`);
  process.exit(1);
}
const need = wanted.slice(1).map(Number);
const have = process.versions.node.split(".").map(Number);
const differs = need.findIndex((n, i) => have[i] !== n); // major, then minor, then patch
if (differs !== -1 && have[differs] < need[differs]) {
  console.error(
    `This project needs Node ${need.join(".")} or newer (wrangler requires it); this is Node ${process.versions.node}. ` +
      "Install Node 22 LTS (https://nodejs.org, or `nvm install 22`) and run the command again.",
  );
  process.exit(1);
}
