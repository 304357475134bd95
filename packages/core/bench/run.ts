/**
 * Sync engine benchmark: the real quantize + grid AOI + per-client delta encode path of
 * binary rooms, in Node, on agar-like rooms driven by a random walk. Prints markdown tables.
 *
 *   npm run bench            (or: tsx packages/core/bench/run.ts [--quick])
 */
import { execSync } from "node:child_process";
import os from "node:os";
import { IdBuffer, NaiveAoi } from "@tikron/aoi";
import { AgarScene, type SceneOptions } from "./agarScene";

const quick = process.argv.includes("--quick");
const WARMUP = quick ? 50 : 150;
const MEASURE = quick ? 100 : 400;
const HZ = 20;


function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))];
}
const ms = (x: number) => x.toFixed(3);

interface Result {
  name: string;
  clients: number;
  entities: number;
  flushMed: number;
  flushP95: number;
  flushP10: number;
  /** Process CPU time (user + system) per flush, mean: insensitive to waiting for a core. */
  flushCpu: number;
  gridAoiMed: number;
  naiveAoiMed: number;
  meanFrame: number;
  framesPerSec: number;
  bytesPerSec: number;
  fullBytesPerSec: number;
  allocPerFlush: number;
  allocMedian: number;
  allocSamples: number;
}

function runScene(name: string, opts: SceneOptions): Result {
  const scene = new AgarScene(opts);
  const naive = new NaiveAoi();
  const positions = () => {
    scene.orbs.forEach((o, i) => (naive.has(i) ? naive.move(i, o.x, o.y) : naive.insert(i, o.x, o.y)));
    scene.players.forEach((p, i) => {
      const id = opts.orbs + i;
      if (naive.has(id)) naive.move(id, p.x, p.y);
      else naive.insert(id, p.x, p.y);
    });
  };
  const buf = new IdBuffer(1024);
  const radius = scene.world.tiers.radius;

  for (let f = 0; f < WARMUP; f++) {
    scene.step();
    scene.flush();
  }

  // Pass 1, what a server does: simulate, flush. Only the flush is timed.
  const flushTimes: number[] = [];
  let cpuMicros = 0;
  let bytes = 0;
  let frames = 0;
  const onFrame = (_c: number, n: number) => {
    bytes += n;
    frames++;
  };
  for (let f = 0; f < MEASURE; f++) {
    scene.step();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    scene.flush(onFrame);
    flushTimes.push(performance.now() - t0);
    const c1 = process.cpuUsage(c0);
    cpuMicros += c1.user + c1.system;
  }

  // Pass 2, comparisons (kept out of pass 1 so they do not evict its caches): AOI alone, grid
  // vs naive, from the same viewer positions; and full snapshots of each visible set.
  const gridTimes: number[] = [];
  const naiveTimes: number[] = [];
  let fullBytes = 0;
  let fullSamples = 0;
  for (let f = 0; f < MEASURE / 2; f++) {
    scene.step();
    scene.flush();
    const t1 = performance.now();
    for (const p of scene.players) scene.world.grid.queryCircle(p.x, p.y, radius, buf);
    gridTimes.push(performance.now() - t1);
    positions();
    const t2 = performance.now();
    for (const p of scene.players) naive.queryCircle(p.x, p.y, radius, buf);
    naiveTimes.push(performance.now() - t2);
    if (f % 10 === 0) {
      fullBytes += scene.fullSnapshotBytes();
      fullSamples++;
    }
  }
  const seconds = MEASURE / HZ;
  const clients = scene.clients.length;

  // Allocation per flush in steady state: heap growth across each flush, no forced GCs (they
  // disturb the optimized code being measured). A scavenge during a flush shows as a drop and
  // that flush is dropped; the game's own step runs between measurements, outside them.
  const deltas: number[] = [];
  const calib: number[] = [];
  for (let f = 0; f < 300; f++) {
    scene.step();
    const h0 = process.memoryUsage().heapUsed;
    scene.flush();
    const h1 = process.memoryUsage().heapUsed;
    if (h1 >= h0) deltas.push(h1 - h0);
    const c0 = process.memoryUsage().heapUsed;
    const c1 = process.memoryUsage().heapUsed;
    if (c1 >= c0) calib.push(c1 - c0);
  }
  const overhead = median(calib);
  const allocMean = deltas.reduce((a, b) => a + b, 0) / Math.max(1, deltas.length) - overhead;

  return {
    name,
    clients,
    entities: opts.players + opts.orbs,
    flushMed: median(flushTimes),
    flushP95: p95(flushTimes),
    flushP10: [...flushTimes].sort((a, b) => a - b)[Math.floor(flushTimes.length * 0.1)],
    flushCpu: cpuMicros / MEASURE / 1000,
    gridAoiMed: median(gridTimes),
    naiveAoiMed: median(naiveTimes),
    meanFrame: frames ? bytes / frames : 0,
    framesPerSec: frames / clients / seconds,
    bytesPerSec: bytes / clients / seconds,
    fullBytesPerSec: (fullBytes / fullSamples / clients) * HZ,
    allocPerFlush: Math.max(0, allocMean),
    allocMedian: Math.max(0, median(deltas) - overhead),
    allocSamples: deltas.length,
  };
}

const single = (r: number) => [{ radius: r, every: 1 }];
const tiered = [
  { radius: 300, every: 1 },
  { radius: 600, every: 4 },
];

const scenes: Array<[string, SceneOptions, string]> = [
  ["agar 100p+300o", { players: 100, orbs: 300, world: 4000, tiers: single(600) }, "≤ 0.5 ms"],
  ["agar 100p+300o, tiers 300/1 600/4", { players: 100, orbs: 300, world: 4000, tiers: tiered }, ""],
  ["agar 500p+2000o", { players: 500, orbs: 2000, world: 4000, tiers: single(600) }, "≤ 4 ms"],
  ["agar 500p+2000o, tiers 300/1 600/4", { players: 500, orbs: 2000, world: 4000, tiers: tiered }, ""],
  ["agar 20p+300o", { players: 20, orbs: 300, world: 4000, tiers: single(600) }, "≤ 2 KiB/s"],
  // The capacity job (PERFORMANCE.md, "Server CPU"): a small dense arena, so every client sees ~20 % of it.
  ["agar 100p+300o dense (world 1000, AOI 250)", { players: 100, orbs: 300, world: 1000, tiers: single(250) }, ""],
  ["agar 300p+300o dense (world 1000, AOI 250)", { players: 300, orbs: 300, world: 1000, tiers: single(250) }, ""],
];

// `--only <text>` runs the scenes whose name contains it (e.g. --only dense).
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt > 0 ? process.argv[onlyAt + 1] ?? "" : "";
const results = scenes.filter(([name]) => name.includes(only)).map(([name, opts, target]) => ({ r: runScene(name, opts), target }));

let commit = "unknown";
try {
  commit = execSync("git rev-parse --short HEAD", { stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
} catch {
  // not a git checkout
}
console.log(`## Sync engine benchmark (Node ${process.version}, ${os.cpus()[0]?.model ?? "?"}, ${os.cpus().length} cpus, commit ${commit})`);
console.log(`4000×4000 world, AOI radius 600, random walk at 13 units/flush, 20 Hz; ${WARMUP} warm-up + ${MEASURE} measured flushes.`);
console.log(`Load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
console.log("### CPU per flush (all clients: quantize + AOI + delta encode)\n");
console.log("| scenario | clients | entities | flush median ms | p10 ms | p95 ms | CPU ms/flush | grid AOI only ms | naive AOI only ms | target |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const { r, target } of results) {
  console.log(
    `| ${r.name} | ${r.clients} | ${r.entities} | ${ms(r.flushMed)} | ${ms(r.flushP10)} | ${ms(r.flushP95)} | ${ms(r.flushCpu)} | ${ms(r.gridAoiMed)} | ${ms(r.naiveAoiMed)} | ${target.includes("ms") ? target : ""} |`,
  );
}
console.log("\n### Bytes per client (FRAME header + delta body; WebSocket framing not counted)\n");
console.log("| scenario | mean frame B | frames/s | B/s per client | full snapshots B/s | smaller by | target |");
console.log("|---|---|---|---|---|---|---|");
for (const { r, target } of results) {
  console.log(
    `| ${r.name} | ${r.meanFrame.toFixed(1)} | ${r.framesPerSec.toFixed(1)} | ${r.bytesPerSec.toFixed(0)} | ${r.fullBytesPerSec.toFixed(0)} | ${(r.fullBytesPerSec / r.bytesPerSec).toFixed(1)}× | ${target.includes("KiB") ? target : r.name === "agar 100p+300o" ? "≥ 3× smaller" : ""} |`,
  );
}
console.log("\n### Heap allocated per flush, steady state (heapUsed growth across a flush; flushes with a GC dropped)\n");
console.log("| scenario | mean B/flush | median B/flush | mean B/client/flush | flushes measured |");
console.log("|---|---|---|---|---|");
for (const { r } of results) {
  console.log(`| ${r.name} | ${r.allocPerFlush.toFixed(0)} | ${r.allocMedian.toFixed(0)} | ${(r.allocPerFlush / r.clients).toFixed(2)} | ${r.allocSamples}/300 |`);
}
