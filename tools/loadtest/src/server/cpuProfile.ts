/**
 * A CPU profile of the Worker's isolate (every Durable Object of a local `wrangler dev` runs in
 * it) taken through wrangler's devtools inspector port with the Chrome DevTools protocol, and
 * its summary: self time per function, as a share of the samples. The raw profile is the
 * `.cpuprofile` format Chrome DevTools and speedscope open.
 */
import WebSocket from "ws";

/** The part of a V8 CPU profile (`Profiler.stop`) this module reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** One line of a profile summary. */
export interface ProfileEntry {
  /** Function name, or the runtime's pseudo-entry: "(program)", "(idle)", "(garbage collector)". */
  name: string;
  /** Script file (last path part) and 1-based line, "" for pseudo-entries. */
  where: string;
  /** Share of all samples with this function on top, %. */
  selfPct: number;
  /** Self time, ms (sample count × mean interval). */
  selfMs: number;
}

/** A summary: the profile's length and the top functions by self time. */
export interface ProfileSummary {
  seconds: number;
  samples: number;
  /** Share of samples the isolate was busy (not "(idle)"), %. */
  busyPct: number;
  /**
   * The longest garbage-collector pauses, ms, longest first (at most 5): runs of consecutive
   * "(garbage collector)" samples. A pause holds every timer and frame of every room in the
   * isolate, so it shows up directly in frame-gap and ack tails.
   */
  gcPausesMs: number[];
  top: ProfileEntry[];
}

/**
 * Self time per function (summed over every node of the same name and place), largest first.
 * Pure: works on any profile object, so it is tested on fixed data.
 */
export function summarizeProfile(p: CpuProfile, topN = 25): ProfileSummary {
  const samples = p.samples ?? [];
  const counts = new Map<number, number>();
  for (const id of samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const byKey = new Map<string, { name: string; where: string; n: number }>();
  let idle = 0;
  for (const node of p.nodes) {
    const n = counts.get(node.id) ?? 0;
    if (n === 0) continue;
    const cf = node.callFrame;
    const name = cf.functionName || "(anonymous)";
    if (name === "(idle)") idle += n;
    const file = cf.url ? cf.url.slice(cf.url.lastIndexOf("/") + 1) : "";
    const where = file ? `${file}:${cf.lineNumber + 1}` : "";
    const key = `${name}@${where}`;
    const e = byKey.get(key);
    if (e) e.n += n;
    else byKey.set(key, { name, where, n });
  }
  const gcPausesMs = gcPauses(p);
  const total = samples.length;
  const seconds = Math.max(0, (p.endTime - p.startTime) / 1e6);
  const msPerSample = total > 0 ? (seconds * 1000) / total : 0;
  const pct = (n: number) => (total > 0 ? Math.round((n / total) * 1000) / 10 : 0);
  const top = [...byKey.values()]
    .sort((a, b) => b.n - a.n)
    .slice(0, topN)
    .map((e) => ({ name: e.name, where: e.where, selfPct: pct(e.n), selfMs: Math.round(e.n * msPerSample) }));
  return { seconds: Math.round(seconds * 10) / 10, samples: total, busyPct: total > 0 ? Math.round((100 - pct(idle)) * 10) / 10 : 0, gcPausesMs, top };
}

/** Lengths (ms) of the 5 longest runs of consecutive GC samples; a run spans its samples' deltas. */
function gcPauses(p: CpuProfile): number[] {
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  const gcIds = new Set(p.nodes.filter((n) => n.callFrame.functionName === "(garbage collector)").map((n) => n.id));
  const runs: number[] = [];
  let runUs = 0;
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the time from sample i-1 to sample i: inside a run it is GC time.
    if (gcIds.has(samples[i]!)) runUs += i + 1 < deltas.length ? deltas[i + 1]! : 0;
    else if (runUs > 0) {
      runs.push(runUs);
      runUs = 0;
    }
  }
  if (runUs > 0) runs.push(runUs);
  return runs
    .sort((a, b) => b - a)
    .slice(0, 5)
    .map((us) => Math.round(us / 100) / 10);
}

/** The summary as text lines (one per entry). */
export function profileLines(s: ProfileSummary): string[] {
  const lines = [
    `${s.seconds} s, ${s.samples} samples, isolate busy ${s.busyPct} % of the samples; longest GC pauses ${s.gcPausesMs.length ? s.gcPausesMs.join(", ") + " ms" : "none"}; self time:`,
  ];
  for (const e of s.top) lines.push(`  ${e.selfPct.toFixed(1).padStart(5)} %  ${String(e.selfMs).padStart(6)} ms  ${e.name}${e.where ? `  ${e.where}` : ""}`);
  return lines;
}

/** The inspector target of the Worker: wrangler's inspector port lists it at `/json`. */
async function workerTarget(inspectorPort: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${inspectorPort}/json`, { signal: AbortSignal.timeout(5_000) });
  const list = (await res.json()) as { webSocketDebuggerUrl?: string }[];
  const url = list.find((t) => typeof t.webSocketDebuggerUrl === "string")?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectorPort}`);
  return url;
}

/**
 * Profiles the Worker's isolate for `seconds` (sampling every `intervalUs`) and returns the raw
 * profile. One inspector session, closed before returning.
 */
export async function captureCpuProfile(inspectorPort: number, seconds: number, intervalUs = 200): Promise<CpuProfile> {
  const ws = new WebSocket(await workerTarget(inspectorPort), { perMessageDeflate: false, maxPayload: 1 << 28 });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  // A socket error or close fails whatever is waiting (an 'error' with no listener would throw).
  const failAll = (e: Error) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  ws.on("error", failAll);
  ws.on("close", () => failAll(new Error("the inspector closed the session")));
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (msg.id === undefined) return;
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) p?.reject(new Error(msg.error.message));
    else p?.resolve(msg.result);
  });
  const call = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      // The timer is cleared when the answer comes, so a finished session holds nothing open.
      const timer = setTimeout(() => {
        if (pending.delete(id)) reject(new Error(`${method}: no answer from the inspector`));
      }, 30_000);
      const settle = <A>(fn: (a: A) => void) => (a: A) => {
        clearTimeout(timer);
        fn(a);
      };
      pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call("Profiler.enable");
    await call("Profiler.setSamplingInterval", { interval: intervalUs });
    await call("Profiler.start");
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const { profile } = (await call("Profiler.stop")) as { profile: CpuProfile };
    return profile;
  } finally {
    ws.close();
  }
}
