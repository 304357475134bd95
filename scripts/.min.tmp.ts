import { build } from "esbuild";
import { join } from "node:path";
import { GAME_BUNDLE_ENTRY } from "./bundle-size";
const r = await build({ stdin: { contents: process.argv[2] ?? GAME_BUNDLE_ENTRY, resolveDir: join(process.cwd(), "apps", "web"), loader: "ts", sourcefile: "e.ts" }, bundle: true, minify: true, format: "esm", platform: "browser", target: "es2022", write: false, logLevel: "silent" });
process.stdout.write(r.outputFiles[0].text);
