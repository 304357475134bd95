import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { gameDefinitions } from "@tikron/games";
import { serveRooms, type RoomServer } from "@tikron/node";
import { probeTimerNoise, type NoiseProbe } from "../metrics/noiseProbe";
import type { Report } from "../report/report";
import { runLoad } from "../run/runner";
import { tsxExecArgv } from "../run/workers";

/** Targets a generator process must meet to be trusted at this client count. */
export const BENCH_TARGETS = {
  minOnSchedulePct: 99,
  maxEventLoopP99Ms: 20,
  maxKiBPerClient: 100,
} as const;

/** Options of the generator capacity benchmark. */
export interface BenchOptions {
  clients: number;
  /** Clients are spread over this many rooms of the Node room server (at most 1000 per room). */
  rooms: number;
  durationSec: number;
  rampSec: number;
  rate: number;
  workers: number;
  /** Run the room server inside this process (its CPU then counts against the generator). */
  inProcessServer: boolean;
}

/** One benchmark verdict line. */
export interface BenchCheck {
  target: string;
  actual: string;
  ok: boolean;
}

const cliPath = fileURLToPath(new URL("../cli.ts", import.meta.url));

/** Starts the Node room server in a child process (loopback, bounded lifetime) and returns its port. */
export async function spawnRoomServer(maxSeconds: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [...tsxExecArgv(), cliPath, "serve", "--port", "0", "--max-seconds", String(Math.ceil(maxSeconds))],
    // Its own session: with per-session CPU scheduling (Linux autogroups) the server then competes
    // for CPU as a separate party, as on its own machine, instead of sharing the generator's share.
    { stdio: ["ignore", "pipe", "inherit"], detached: true },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("room server did not start within 30 s")), 30_000);
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const m = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`room server exited early with code ${code}`));
    });
  });
  child.stdout!.resume();
  return { child, port };
}

/** Compares a benchmark report against {@link BENCH_TARGETS}. */
export function benchChecks(r: Report): BenchCheck[] {
  const s = r.summary;
  const kib = Math.max(s.generator.rssPerClientKiB ?? Number.POSITIVE_INFINITY, s.generator.heapPerClientKiB ?? 0);
  return [
    {
      target: `all ${s.clients.planned} clients joined`,
      actual: `${s.clients.joined}/${s.clients.planned}`,
      ok: s.clients.joined === s.clients.planned,
    },
    {
      target: `>= ${BENCH_TARGETS.minOnSchedulePct}% inputs on schedule`,
      actual: `${s.inputs.onSchedulePct}% of ${s.inputs.sent}`,
      ok: s.inputs.sent > 0 && s.inputs.onSchedulePct >= BENCH_TARGETS.minOnSchedulePct,
    },
    {
      target: `event-loop delay p99 <= ${BENCH_TARGETS.maxEventLoopP99Ms} ms (every thread)`,
      actual: `${s.generator.eventLoopP99Ms} ms (max ${s.generator.eventLoopMaxMs} ms)`,
      ok: s.generator.eventLoopP99Ms <= BENCH_TARGETS.maxEventLoopP99Ms,
    },
    {
      target: `<= ${BENCH_TARGETS.maxKiBPerClient} KiB per client (RSS and heap growth)`,
      actual: `RSS ${s.generator.rssPerClientKiB ?? "n/a"} KiB, heap ${s.generator.heapPerClientKiB ?? "n/a"} KiB`,
      ok: kib <= BENCH_TARGETS.maxKiBPerClient,
    },
  ];
}

/**
 * The DEV_MODE overrides that make the rooms admit the benchmark's clients: every client gets a
 * seat, joins are not throttled over the ramp, and the message budget is above the input rate.
 */
export function benchRoomQuery(playersPerRoom: number, rate: number): string {
  const joins = Math.max(40, playersPerRoom);
  return `cap=${playersPerRoom}&joinRatePerSec=${joins}&joinBurst=${joins}&msgRatePerSec=${Math.max(60, Math.ceil(rate * 2))}`;
}

/**
 * Measures how many clients one generator process can drive honestly: N clients at `rate` Hz
 * against real rooms on the loopback Node room server (in a separate process by default, so
 * the server's CPU is not charged to the generator).
 */
export async function benchGenerator(
  o: BenchOptions,
): Promise<{ report: Report; checks: BenchCheck[]; noise: { before: NoiseProbe; after: NoiseProbe } }> {
  if (o.clients % o.rooms !== 0) throw new Error(`clients (${o.clients}) must be a multiple of rooms (${o.rooms})`);
  const playersPerRoom = o.clients / o.rooms;
  if (playersPerRoom > 1000) throw new Error(`${playersPerRoom} clients per room is above the 1000-seat override limit: use more --rooms`);
  const budgetSec = o.rampSec + o.durationSec + 60;
  let server: RoomServer | null = null;
  let child: ChildProcess | null = null;
  let url: string;
  if (o.inProcessServer) {
    server = await serveRooms({ games: gameDefinitions });
    url = server.url;
  } else {
    const s = await spawnRoomServer(budgetSec);
    child = s.child;
    url = `ws://127.0.0.1:${s.port}`;
  }
  try {
    // The machine's own noise floor, bracketing the run: an idle timer that already misses the
    // bar means the machine, not the generator, limits the result.
    const before = await probeTimerNoise();
    const report = await runLoad({
      url,
      players: playersPerRoom,
      rooms: o.rooms,
      durationSec: o.durationSec,
      rampSec: o.rampSec,
      rate: o.rate,
      workers: o.workers,
      query: benchRoomQuery(playersPerRoom, o.rate),
      name: `bench-generator-${o.clients}c-${o.workers >= 2 ? `${o.workers}w` : "1t"}`,
    });
    const after = await probeTimerNoise();
    return { report, checks: benchChecks(report), noise: { before, after } };
  } finally {
    if (server) await server.close();
    if (child && child.exitCode === null && child.pid !== undefined) child.kill("SIGTERM");
  }
}
