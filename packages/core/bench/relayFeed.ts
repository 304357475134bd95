/**
 * World feed benchmark: what relaying costs and what it takes off the simulation, on the agar
 * scene at the standard density (AOI 250, world 1000·√(N/100), 3 orbs per player so the density
 * of orbs holds too). Per flush: bytes of the update, time to write it (simulation side), time
 * to apply it (relay side), against the per-client work of the flush (AOI, tiers, delta encode
 * of every client) that a relay takes over. Every relay frame is also checked against the
 * single room's. Prints a markdown table.
 *
 *   bash scripts/toolchain.sh tsx packages/core/bench/relayFeed.ts [--quick] [--repeats N] [--players 100,300]
 */
import { execSync } from "node:child_process";
import os from "node:os";
import { FrameWriter } from "@tikron/protocol";
import { MirrorWorld, WorldFeed } from "../src/sync/index";
import { AgarScene, benchSchema } from "./agarScene";

const quick = process.argv.includes("--quick");
const WARMUP = quick ? 40 : 150;
const MEASURE = quick ? 80 : 400;
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const REPEATS = Number(arg("--repeats") ?? (quick ? 1 : 3));
const PLAYERS = (arg("--players") ?? "100,300,1000").split(",").map(Number);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

interface Sample {
  updateBytes: number;
  quantizeMs: number;
  /** The same on a twin scene with no feed attached: what recording the grid's history adds. */
  bareQuantizeMs: number;
  writeMs: number;
  applyMs: number;
  /** The single room's per-client work: every client's AOI + delta encode, after quantizing. */
  encodeMs: number;
  /** The same work on the relay, over its mirror. */
  relayEncodeMs: number;
  writeAlloc: number;
  applyAlloc: number;
  snapshotBytes: number;
  snapshotMs: number;
  mismatches: number;
}

/** Median `beginFlush` (quantize + shared updates) of the same scene without a feed. */
function bareQuantize(players: number, seed: number): number {
  const tiers = [{ radius: 250, every: 1 }];
  const scene = new AgarScene({ players, orbs: 3 * players, world: 1000 * Math.sqrt(players / 100), tiers, seed });
  const times: number[] = [];
  for (let f = 0; f < WARMUP + MEASURE; f++) {
    scene.step();
    const t0 = performance.now();
    scene.world.encoder.beginFlush(scene.flushIndex++);
    if (f >= WARMUP && (f & 1) === 0) times.push(performance.now() - t0);
  }
  return median(times);
}

function run(players: number, seed: number): Sample {
  const tiers = [{ radius: 250, every: 1 }];
  const scene = new AgarScene({ players, orbs: 3 * players, world: 1000 * Math.sqrt(players / 100), tiers, seed });
  const world = scene.world;
  const feed = new WorldFeed(world);
  const mirror = new MirrorWorld(benchSchema, { tiers });
  const relayClients = scene.clients.map((_, i) => mirror.encoder.createClient(i));
  const update = new FrameWriter(1 << 16);
  const snap = new FrameWriter(1 << 16);
  const a = new FrameWriter(1 << 14);
  const b = new FrameWriter(1 << 14);
  let mismatches = 0;

  feed.writeSnapshot(snap.reset());
  if (mirror.apply(snap.toBytes()) !== "applied") throw new Error("snapshot refused");

  const q: number[] = [];
  const wr: number[] = [];
  const ap: number[] = [];
  const enc: number[] = [];
  const renc: number[] = [];
  const bytes: number[] = [];
  const wAlloc: number[] = [];
  const aAlloc: number[] = [];
  const calib: number[] = [];
  for (let f = 0; f < WARMUP + MEASURE; f++) {
    scene.step();
    const idx = scene.flushIndex++;
    // Odd flushes measure heap growth instead of time: reading the heap inside a timed window
    // would be timed too.
    const heap = (f & 1) === 1;
    const t0 = performance.now();
    world.encoder.beginFlush(idx);
    const t1 = performance.now();
    const h0 = heap ? process.memoryUsage().heapUsed : 0;
    feed.writeUpdate(update.reset(), idx);
    const h1 = heap ? process.memoryUsage().heapUsed : 0;
    const t2 = performance.now();
    const msg = update.peek();
    const t3 = performance.now();
    const h2 = heap ? process.memoryUsage().heapUsed : 0;
    if (mirror.apply(msg) !== "applied") throw new Error("update refused");
    const h3 = heap ? process.memoryUsage().heapUsed : 0;
    const t4 = performance.now();
    let simMs = 0;
    let relayMs = 0;
    for (let i = 0; i < scene.clients.length; i++) {
      const s0 = performance.now();
      world.encoder.encodeClient(scene.clients[i], a.reset());
      const s1 = performance.now();
      if (i === 0) mirror.encoder.beginFlush(mirror.flushIndex);
      const s2 = performance.now();
      mirror.encoder.encodeClient(relayClients[i], b.reset());
      const s3 = performance.now();
      simMs += s1 - s0;
      relayMs += s3 - s2;
      if (!sameBytes(a, b)) mismatches++;
    }
    if (f < WARMUP) continue;
    bytes.push(msg.length);
    if (heap) {
      // A scavenge inside the window shows as a drop: those samples are left out. Reading
      // the heap allocates a little itself: two reads in a row measure that, to subtract.
      if (h1 >= h0) wAlloc.push(h1 - h0);
      if (h3 >= h2) aAlloc.push(h3 - h2);
      const c0 = process.memoryUsage().heapUsed;
      const c1 = process.memoryUsage().heapUsed;
      if (c1 >= c0) calib.push(c1 - c0);
      continue;
    }
    q.push(t1 - t0);
    wr.push(t2 - t1);
    ap.push(t4 - t3);
    enc.push(simMs);
    renc.push(relayMs);
  }
  const s0 = performance.now();
  feed.writeSnapshot(snap.reset());
  const snapshotMs = performance.now() - s0;
  feed.detach();
  return {
    updateBytes: median(bytes),
    quantizeMs: median(q),
    bareQuantizeMs: bareQuantize(players, seed),
    writeMs: median(wr),
    applyMs: median(ap),
    encodeMs: median(enc),
    relayEncodeMs: median(renc),
    writeAlloc: Math.max(0, median(wAlloc) - median(calib)),
    applyAlloc: Math.max(0, median(aAlloc) - median(calib)),
    snapshotBytes: snap.offset,
    snapshotMs,
    mismatches,
  };
}

function sameBytes(a: FrameWriter, b: FrameWriter): boolean {
  if (a.offset !== b.offset) return false;
  const x = a.peek();
  const y = b.peek();
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

let commit = "unknown";
try {
  commit = execSync("git rev-parse --short HEAD", { stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
} catch {
  // not a git checkout
}
console.log(`## World feed benchmark (Node ${process.version}, ${os.cpus()[0]?.model ?? "?"}, ${os.cpus().length} cpus, commit ${commit})`);
console.log(`agar, AOI 250, world 1000·√(N/100), 3 orbs per player, 20 Hz random walk; ${WARMUP} warm-up + ${MEASURE} measured flushes, ${REPEATS} repeat(s), medians of the per-repeat medians.`);
console.log(`Load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
console.log("| players | entities | update B/flush | quantize + shared updates ms (no feed → feed) | write update ms | apply update ms | per-client work ms (room) | same on relay ms | write / per-client work | heap B write / apply | snapshot B (ms) | frames ≠ room |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const players of PLAYERS) {
  const runs = Array.from({ length: REPEATS }, (_, r) => run(players, 42 + r));
  const m = (k: keyof Sample) => median(runs.map((s) => s[k]));
  const f3 = (x: number) => x.toFixed(3);
  console.log(
    `| ${players} | ${players * 4} | ${m("updateBytes").toFixed(0)} | ${f3(m("bareQuantizeMs"))} → ${f3(m("quantizeMs"))} | ${f3(m("writeMs"))} | ${f3(m("applyMs"))} | ${f3(m("encodeMs"))} | ${f3(m("relayEncodeMs"))} | ${(m("writeMs") / m("encodeMs")).toFixed(3)} | ${m("writeAlloc").toFixed(0)} / ${m("applyAlloc").toFixed(0)} | ${m("snapshotBytes").toFixed(0)} (${f3(m("snapshotMs"))}) | ${runs.reduce((n, s) => n + s.mismatches, 0)} |`,
  );
}
