/**
 * What the SDK costs a browser page: bundles the client SDK's whole public API plus one game's
 * wire declarations (agar's schema and input codec from `@tikron/games/schemas`) with esbuild
 * (minified ESM, browser platform, as a game's page would), gzips the result and lists every
 * input module with its share of the minified output.
 *
 *   tsx scripts/bundle-size.ts          prints the sizes and the module list
 *   tsx scripts/bundle-size.ts --json   the same as JSON
 *   tsx scripts/bundle-size.ts --dist   also bundles the built dist/ (build-packages.ts protocol client first)
 *   tsx scripts/bundle-size.ts --breakdown   also what each part of the API adds (SDK_BREAKDOWN)
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Largest accepted gzipped size of that bundle (bytes). The goal is 10 KB; the SDK's own modules
 * (the connection, the delta view, the protocol's messages and the playout clock are most of the
 * ~33 KB minified) keep it above that, so this cap holds the line at today's size: it fails on
 * growth, not on the goal. History (gzip -9): 13,869 with room-core modules inside; 13,590 once input
 * refusals moved to the protocol and packages declared `sideEffects: false`; 14,067 after the
 * room's INPUT frame reader landed in the protocol; 13,647 with that reader created pure; 14,577
 * after the client split added `InterpolatedView`; 15,458 with typed games (a game's input
 * encoder and event decoder run by the connection), open/reconnect/switchTo by hand and the
 * view's change callbacks (onAdd/onRemove/onChange); 15,724 with receipts (the client confirms
 * what it read, so the room can bound each client's backlog) and the idle-frame handling;
 * 14,770 with the SDK's and the delta view's internal members as ES `#private` ones, which
 * esbuild and terser shorten by default, so a game's own bundler gets the saving from the
 * published files too (they are tsc's plain ES2022 output, not mangled at build time);
 * 14,885 with the room's allocation cuts in shared code (the writer's cached `peek()` views,
 * +65; steering read with `f32At`, +50); 15,480 with room messages (`send`, `request`,
 * replies, `RequestError`: +595); 12,498 after the SDK was rewritten smaller (the connection as
 * one state machine, one decoded shape for both dialects' server messages, one window-minimum and
 * slew rule for the clocks, one section loop in the delta view, a lean writer/reader for pages
 * with the room's extras in FrameWriter/FrameReader, internal tuning knobs as constants); 12,314
 * after a third pass of small cuts (one backoff jitter mode, requests stored as their settle
 * function, encoders passed without wrappers, one TextEncoder); 12,246 with one way to hear what
 * a body changed (the view's onAdd/onRemove/onChange; the decoder's `listener` is gone). Then a
 * round of fixes for hostile or broken input, each measured alone against 12,246: the clocks
 * and prediction guarded against hostile time (tunables that are not numbers refused with a
 * RangeError, non-finite times ignored, gone entities let go without render updates, prediction
 * owning what it mutates and keeping its pending inputs in order), +149; every interpolated view
 * kept attached (a second one used to detach the first, which then froze after a room restart),
 * +43; a stepped clock sample anchoring the slew at its own arrival, +5; hostile server streams
 * (a failed body puts back what it took out or added and an id may enter once per body, +77;
 * every undecodable message drops the socket, +23; back-offs capped at what a timer holds, +6;
 * JSON fields held to their types and the schema hash always checked, +10; refusal reasons cut
 * to what a client reads, +8); the connection's state-machine fixes, −8. Together: 12,537;
 * 12,584 with room URLs keeping a base's query string (`?region=eu` used to end up before the
 * room path); 12,602 with a JSON field that is not a number refused as bad_value (an object
 * whose toString is not a function made the u32 check throw a TypeError); 12,870 with refused
 * joins readable by every client (a transport error is a drop at once, the refusal close codes
 * and their names, the wait a close reason carries, `JoinError`: +268); 13,811 with
 * matchmaking: joins that name a seat reservation (+74) and the `matchmaker` client
 * (joinOrCreate, create, join, joinById, queue, getAvailableRooms, reserve; refusals as
 * `JoinError`, re-matching a refused join: +872, measured by leaving its export out); 13,944
 * with operating it: the operator's notice and the `kicked` / `banned` closes in the protocol
 * (+69) and the SDK's `notice` event and sign-in tokens (`authToken` on `connect` and
 * `matchmaker`: +58).
 */
export const SDK_BUNDLE_BUDGET_GZIP = 13_950;

/** The bundle's entry: everything `@tikron/client` exports, and agar's client-side declarations. */
export const SDK_BUNDLE_ENTRY = [
  `export * from "@tikron/client";`,
  `export { agarSchema, AGAR_MAX_WORLD, AGAR_RULES, agarSpeedFor, encodeAgarInput, decodeAgarInput, AGAR_INPUT_BYTES } from "@tikron/games/schemas";`,
].join("\n");

/**
 * A page that joins, decodes and interpolates but does not predict: what tree-shaking leaves of
 * the SDK when only part of it is imported (reported, and checked to leave the rest out).
 */
export const PAGE_BUNDLE_ENTRY = [
  `export { connect, schemaDecoder, SnapshotBuffer } from "@tikron/client";`,
  `export { agarSchema, encodeAgarInput } from "@tikron/games/schemas";`,
].join("\n");

/**
 * The SDK's public API in the order a page adopts it, each step adding to the one before; the
 * last is the whole API ({@link SDK_BUNDLE_ENTRY}). `--breakdown` measures each, so what every
 * part costs a page is a number, not a guess.
 */
export const SDK_BREAKDOWN: readonly { label: string; entry: string }[] = [
  { label: "connect() (both dialects, the delta view it decodes schemas with)", entry: `export { connect } from "@tikron/client";` },
  { label: "+ agar's schema and input codec, schemaDecoder", entry: `export { connect, schemaDecoder } from "@tikron/client"; export { agarSchema, encodeAgarInput } from "@tikron/games/schemas";` },
  { label: "+ interpolation (createInterpolatedView, SnapshotBuffer)", entry: `export { connect, schemaDecoder, createInterpolatedView, SnapshotBuffer } from "@tikron/client"; export { agarSchema, encodeAgarInput } from "@tikron/games/schemas";` },
  { label: "+ prediction (Predictor) and agar's movement rule", entry: `export { connect, schemaDecoder, createInterpolatedView, SnapshotBuffer, Predictor } from "@tikron/client"; export { agarSchema, encodeAgarInput, AGAR_RULES, agarSpeedFor } from "@tikron/games/schemas";` },
  { label: "the whole public API + agar's client-side declarations", entry: SDK_BUNDLE_ENTRY },
];

/** One input module and the minified bytes it contributes. */
export interface BundleInput {
  /** Path relative to the repository root. */
  path: string;
  bytes: number;
}

/** Sizes of the SDK bundle. */
export interface BundleReport {
  minifiedBytes: number;
  gzipBytes: number;
  /** Modules with code in the output, largest first. */
  inputs: BundleInput[];
}

/**
 * Where `@tikron/protocol` and `@tikron/client` are taken from: the workspace sources, or the
 * built `dist/` a game installs (`tsx scripts/build-packages.ts protocol client` first). The two
 * must agree: a saving that only exists when bundling TypeScript sources (e.g. enum members a
 * bundler inlines from `.ts` but not from tsc's output) is not a saving for a game.
 */
export type BundleSource = "src" | "dist";

/** Bundles, minifies and gzips an entry (default: the SDK's whole API); nothing is written to disk. */
export async function measureSdkBundle(entry: string = SDK_BUNDLE_ENTRY, from: BundleSource = "src"): Promise<BundleReport> {
  const dist = (name: string): string => join(ROOT, "packages", name, "dist", "index.js");
  const result = await build({
    alias: from === "dist" ? { "@tikron/protocol": dist("protocol"), "@tikron/client": dist("client") } : {},
    // Resolved from the demo page's package, which depends on the client and the games' schemas
    // the way a game's page would.
    stdin: { contents: entry, resolveDir: join(ROOT, "apps", "web"), loader: "ts", sourcefile: "sdk-entry.ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles![0]!.contents;
  const output = Object.values(result.metafile!.outputs)[0]!;
  const inputs = Object.entries(output.inputs)
    .filter(([, v]) => v.bytesInOutput > 0)
    .map(([path, v]) => ({ path: relative(ROOT, join(ROOT, path)), bytes: v.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes);
  return { minifiedBytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, inputs };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await measureSdkBundle();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(`SDK bundle (client public API + agar schemas): ${report.minifiedBytes} B minified, ${report.gzipBytes} B gzip (budget ${SDK_BUNDLE_BUDGET_GZIP} B)`);
    console.log(`${report.inputs.length} input modules:`);
    for (const i of report.inputs) console.log(`  ${String(i.bytes).padStart(6)}  ${i.path}`);
    const page = await measureSdkBundle(PAGE_BUNDLE_ENTRY);
    console.log(`A page importing connect, schemaDecoder, SnapshotBuffer + agar's codec: ${page.minifiedBytes} B minified, ${page.gzipBytes} B gzip (${page.inputs.length} modules)`);
    if (process.argv.includes("--breakdown")) {
      console.log("What each part of the API adds (each step includes the ones above):");
      let before = 0;
      for (const step of SDK_BREAKDOWN) {
        const r = await measureSdkBundle(step.entry);
        console.log(`  ${String(r.gzipBytes).padStart(6)} B gzip  ${`(+${r.gzipBytes - before})`.padStart(7)}  ${String(r.minifiedBytes).padStart(6)} B min  ${step.label}`);
        before = r.gzipBytes;
      }
    }
    if (process.argv.includes("--dist")) {
      const built = await measureSdkBundle(SDK_BUNDLE_ENTRY, "dist");
      console.log(`The same API from the built dist/ (as installed): ${built.minifiedBytes} B minified, ${built.gzipBytes} B gzip`);
    }
  }
}
