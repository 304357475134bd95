/**
 * What a hostile phase costs the server, for the long suite's report: CPU of each `wrangler dev`
 * process over the phase (the workerd that runs the Worker and every Durable Object, the dev
 * proxy workerd in front of it, wrangler's own node) and, optionally, a CPU profile of the
 * Worker's isolate through the inspector port (self time per function, the share the isolate
 * sat idle).
 */
import WebSocket from "ws";
import { clockTicksPerSec } from "../../tools/loadtest/src/server/procStat";
import { takeSample, ticksBetween, type CpuSample } from "../../tools/loadtest/src/server/serverCpu";

/** % of one core each server process used between two samples, by role ("worker", "proxy", "node"). */
export function cpuByRole(start: CpuSample, end: CpuSample): Record<string, number> {
  const wallS = (end.atMs - start.atMs) / 1000;
  const out: Record<string, number> = {};
  for (const p of end.procs) {
    const role = p.role === "other" ? p.comm : `workerd-${p.role}`;
    const { ticks } = ticksBetween(start, end, (c) => c === p.comm, p.pid);
    out[role] = Math.round((out[role] ?? 0) + (100 * ticks) / clockTicksPerSec() / wallS);
  }
  return out;
}

/** Starts sampling the server's CPU now; `stop()` gives % of a core by role since then, and this process's own. */
export function phaseCpu(rootPid: number): { stop(): Record<string, number> } {
  const first = takeSample(rootPid);
  const own = process.cpuUsage();
  const t0 = performance.now();
  return {
    stop() {
      const out = cpuByRole(first, takeSample(rootPid));
      const used = process.cpuUsage(own);
      out["test process"] = Math.round((100 * (used.user + used.system)) / 1000 / (performance.now() - t0));
      return out;
    },
  };
}

/** Self time of the top functions in a CPU profile of the Worker's isolate. */
export interface ProfileSummary {
  /** Share of samples, %, per `function (file:line)`, largest first. */
  top: { name: string; pct: number }[];
  idlePct: number;
  samples: number;
}

interface CdpProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
}

/** Profiles the Worker's isolate for `ms` through wrangler dev's inspector port (Chrome DevTools protocol). */
export async function profileWorker(inspectorPort: number, ms: number, topN = 12): Promise<ProfileSummary> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error("no inspector target");
  const ws = new WebSocket(url);
  await new Promise((r, j) => (ws.once("open", r), ws.once("error", j)));
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on("message", (data: Buffer) => {
    const m = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (m.id !== undefined) pending.get(m.id)?.(m.result);
  });
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call("Profiler.enable");
    await call("Profiler.setSamplingInterval", { interval: 500 });
    await call("Profiler.start");
    await new Promise((r) => setTimeout(r, ms));
    const { profile } = (await call("Profiler.stop")) as { profile: CdpProfile };
    const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    const counts = new Map<string, number>();
    for (const s of profile.samples) {
      const f = byId.get(s);
      const name = f ? `${f.functionName || "(anonymous)"}${f.url ? ` (${f.url.split("/").pop()}:${f.lineNumber + 1})` : ""}` : "?";
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    const total = Math.max(1, profile.samples.length);
    const pct = (n: number) => Math.round((1000 * n) / total) / 10;
    const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, topN).map(([name, n]) => ({ name, pct: pct(n) }));
    return { top, idlePct: pct(counts.get("(idle)") ?? 0), samples: profile.samples.length };
  } finally {
    ws.terminate();
  }
}
