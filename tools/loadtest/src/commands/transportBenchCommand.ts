/** `loadtest transport-bench`: RPC vs an internal WebSocket (and more) between a simulation object and its relays. */
import type { Command } from "commander";
import { runTransportBench, transportBenchMarkdown, type BenchServer, type BenchTarget } from "../bench/transportBench";
import { BENCH_TRANSPORTS, type BenchTransport } from "../bench/transportFigures";
import { RESULTS_DIR } from "../report/reportFiles";
import { startLocalServer } from "../run/serverRun";
import { defaultPinning } from "../server/pinning";
import { workerEntryUrl } from "../server/workerEntry";
import { num, parsed, posInt, posNum } from "./parsers";

/** The floor's wrangler config, where the bench's objects live. */
export const FLOOR_CONFIG = "apps/floor/wrangler.jsonc";

/** "2,4,8" → [2, 4, 8]: positive integers, no repeats. */
export function parseCountList(v: string): number[] {
  const out = v.split(",").map((x) => Number(x.trim()));
  if (out.length === 0 || out.some((n) => !Number.isInteger(n) || n < 1 || n > 64)) throw new Error(`bad list "${v}": integers 1..64, comma-separated (e.g. 2,4,8)`);
  if (new Set(out).size !== out.length) throw new Error(`"${v}" names a value twice`);
  return out;
}

/** "2k,16k,64k" or "2048,1200" → bytes (k = 1024), each 16 B..1 MiB. */
export function parseByteSize(v: string): number {
  const m = /^\s*(\d+)\s*([kK])?(?:i?[bB])?\s*$/.exec(v);
  const n = m ? Number(m[1]) * (m[2] ? 1024 : 1) : NaN;
  if (!Number.isInteger(n) || n < 16 || n > 1 << 20) throw new Error(`bad size "${v}": bytes or KiB (e.g. 1200, 16k), 16 B to 1024k`);
  return n;
}

/** A comma-separated list of sizes, no repeats. */
export function parseByteSizeList(v: string): number[] {
  const out = v.split(",").map(parseByteSize);
  if (new Set(out).size !== out.length) throw new Error(`"${v}" names a size twice`);
  return out;
}

/** "rpc,ws" → transports the floor knows, no repeats. */
export function parseTransportList(v: string): BenchTransport[] {
  const out = v.split(",").map((x) => x.trim());
  const bad = out.filter((t) => !(BENCH_TRANSPORTS as readonly string[]).includes(t));
  if (bad.length) throw new Error(`unknown transport ${bad.map((b) => `"${b}"`).join(", ")}: use ${BENCH_TRANSPORTS.join(", ")}`);
  if (new Set(out).size !== out.length) throw new Error(`"${v}" names a transport twice`);
  return out as BenchTransport[];
}

/** Registers `transport-bench` on the program. */
export function registerTransportBenchCommand(program: Command): void {
  program
    .command("transport-bench")
    .description(
      "the transport between Durable Objects for relayed rooms: a simulation object sends K relays an S-byte update and each relay sends back a B-byte input batch every interval, by RPC, an internal WebSocket or fetch; worker CPU, messages delivered and one-way latency per transport, alternated, with each transport's CPU fitted per message and per KiB",
    )
    .option("--server <config>", "wrangler config to start, fresh for every (repeat, point) (\"staging\" or a path; it must hold the floor's bench objects)", FLOOR_CONFIG)
    .option("--url <url>", "use this running floor worker instead of starting one (no CPU figures unless --server-pid)")
    .option("--server-pid <pid>", "with --url: wrangler's pid, to read the worker's CPU", posInt("server-pid"))
    .option("--transports <list>", `transports to compare (${BENCH_TRANSPORTS.join(", ")})`, parsed(parseTransportList), [...BENCH_TRANSPORTS])
    .option("--relays <list>", "relay counts K", parsed(parseCountList), [2, 4, 8])
    .option("--update-bytes <list>", "world update sizes S (k = KiB)", parsed(parseByteSizeList), [2048, 16384, 65536])
    .option("--input-bytes <size>", "batched input size B per relay (100 clients × 12 B)", parsed(parseByteSize), 1200)
    .option("--interval-ms <ms>", "interval between sends, both ways", posInt("interval-ms"), 50)
    .option("--warmup <sec>", "unmeasured seconds after each start", num("warmup"), 1)
    .option("--window <sec>", "measured seconds per run", posNum("window"), 4)
    .option("--repeats <n>", "repeats of the whole series", posInt("repeats"), 3)
    .option("--no-pin", "do not pin the server to the first core")
    .option("--profile", "also CPU-profile the isolate over every window (costs CPU: compare profiled runs only with each other)")
    .option("--name <name>", "result name", "transport-bench")
    .option("--out <dir>", "results directory", RESULTS_DIR)
    .action(async (o) => {
      const log = (line: string): void => console.error(line);
      const cpus = o.pin ? (defaultPinning().serverCpus ?? undefined) : undefined;
      if (o.profile && o.url) throw new Error("--profile needs a server the bench starts (not --url)");
      const startServer = async (): Promise<BenchServer> => {
        const server = await startLocalServer({ config: o.server, cpus });
        try {
          const entry = await workerEntryUrl(server.pid);
          const baseUrl = (entry ?? server.url).replace(/^ws/, "http");
          log(`server ${baseUrl} (pid ${server.pid}${cpus ? `, pinned to CPU ${cpus}` : ""}) ready`);
          return { baseUrl, serverPid: server.pid, profileInspectorPort: o.profile ? server.inspectorPort : undefined, stop: () => server.stop() };
        } catch (err) {
          await server.stop();
          throw err;
        }
      };
      const target: BenchTarget | (() => Promise<BenchServer>) = o.url
        ? { baseUrl: String(o.url).replace(/^ws/, "http").replace(/\/$/, ""), serverPid: o.serverPid ?? null }
        : startServer;
      const { result, files } = await runTransportBench({
        target,
        transports: o.transports,
        relays: o.relays,
        updateBytes: o.updateBytes,
        inputBytes: o.inputBytes,
        intervalMs: o.intervalMs,
        warmupSec: o.warmup,
        windowSec: o.window,
        repeats: o.repeats,
        name: o.name,
        outDir: o.out,
        log,
      });
      console.log(`\n${transportBenchMarkdown(result)}`);
      console.log(files.join("\n"));
    });
}
