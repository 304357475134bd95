/**
 * The relay-transport bench end to end, kept short: one fresh floor server, K = 2 relays, every
 * transport for a 1 s window. Each must deliver both ways in order with its CPU read, and the
 * server must be gone afterwards.
 */
import { groupMembers } from "@tikron/devserver";
import { describe, expect, it } from "vitest";
import { runTransportBench, type BenchServer } from "../src/bench/transportBench";
import { BENCH_TRANSPORTS } from "../src/bench/transportFigures";
import { FLOOR_CONFIG } from "../src/commands/transportBenchCommand";
import { startLocalServer } from "../src/run/serverRun";
import { workerEntryUrl } from "../src/server/workerEntry";

describe("transport-bench against the floor", () => {
  it("moves updates and input batches by every transport, in order, and stops its server", { timeout: 120_000 }, async () => {
    const pids: number[] = [];
    const { result } = await runTransportBench({
      target: async (): Promise<BenchServer> => {
        const server = await startLocalServer({ config: FLOOR_CONFIG });
        pids.push(server.pid);
        const entry = await workerEntryUrl(server.pid);
        return { baseUrl: (entry ?? server.url).replace(/^ws/, "http"), serverPid: server.pid, stop: () => server.stop() };
      },
      transports: BENCH_TRANSPORTS,
      relays: [2],
      updateBytes: [4096],
      inputBytes: 1200,
      intervalMs: 50,
      warmupSec: 0.5,
      windowSec: 1,
      repeats: 1,
      name: "it-transport",
    });
    expect(pids).toHaveLength(1);
    expect(groupMembers(pids[0]!)).toEqual([]);
    expect(result.clock?.date.distinctValues).toBeGreaterThan(0);
    expect(result.runs.map((r) => r.transport)).toEqual([...BENCH_TRANSPORTS]);
    for (const r of result.runs) {
      expect(r.workerCpuPct, r.transport).not.toBeNull();
      expect(r.malformed, r.transport).toBe(0);
      if (r.transport === "none") {
        expect(r.messagesPerSec).toBe(0);
        continue;
      }
      // 2 relays × 20/s each way; a busy machine's late timers may cost some, never most.
      expect(r.updates.perSec, `${r.transport} updates`).toBeGreaterThan(20);
      expect(r.inputs.perSec, `${r.transport} inputs`).toBeGreaterThan(20);
      expect(r.updates.outOfOrder + r.inputs.outOfOrder, r.transport).toBe(0);
      expect(r.updates.errors + r.inputs.errors, r.transport).toBe(0);
      expect(r.updates.p50, r.transport).not.toBeNull();
    }
  });
});
