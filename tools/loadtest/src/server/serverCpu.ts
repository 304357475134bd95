/**
 * Server CPU over a run's steady window, read from /proc for a local `wrangler dev`: workerd's
 * utime + stime (it runs the Worker and every Durable Object) at the window's start and end, plus
 * one sample a second for a series. wrangler's own node process (and esbuild) is reported apart.
 */
import type { ProfileSummary } from "./cpuProfile";
import os from "node:os";
import {
  clockTicksPerSec,
  cpusAllowed,
  isWorkerd,
  listProcesses,
  onlineCpus,
  parseCpuList,
  procAvailable,
  processRole,
  readProcStat,
  serverProcesses,
  type ProcStat,
  type WorkerdRole,
} from "./procStat";

/** CPU time of the server's processes at one moment. */
export interface CpuSample {
  /** Epoch ms (fractional) when the sample was read. */
  atMs: number;
  procs: { pid: number; comm: string; role: WorkerdRole; starttime: number; ticks: number }[];
}

/** One point of the per-second series: workerd CPU over the interval ending `tSec` into the window. */
export interface CpuSeriesPoint {
  tSec: number;
  cpuPct: number;
}

/** What the report says about the server's CPU (`report.server`). */
export interface ServerCpuReport {
  /** The pid the processes were found from (wrangler's, also its process group id). */
  rootPid: number;
  workerdPids: number[];
  /** The other processes of the server (wrangler's node, esbuild), pid and name. */
  otherProcesses: { pid: number; comm: string }[];
  /**
   * Each workerd over the window: the "worker" one runs the Worker and every Durable Object; the
   * "proxy" one is wrangler dev's local front proxy that every message passes through.
   */
  workerd: { pid: number; role: WorkerdRole; cpuPct: number | null }[];
  clockTicksPerSec: number;
  /** Measured steady window: its start (ISO) and length between the first and last sample. */
  window: { startedAt: string; seconds: number };
  /** All workerd processes' CPU over the steady window, % of ONE core (100 = one core busy all the time). */
  cpuPct: number | null;
  /** workerd CPU µs / (client INPUT frames in + FRAMEs out during the window, counted by the generator). */
  cpuUsPerMsg: number | null;
  /** Messages the µs/message figure divides by. */
  messages: number;
  /** wrangler's own processes (not workerd) over the same window, % of one core. */
  otherCpuPct: number | null;
  /** Number of /proc samples taken in the window (start, once a second, end). */
  samples: number;
  series: CpuSeriesPoint[];
  /** True when workerd may run on fewer cores than the machine has online. */
  pinned: boolean;
  /** workerd's `Cpus_allowed_list`, e.g. "0". */
  cpusAllowed: string | null;
  /** The machine's online cores, e.g. "0-1". */
  onlineCpus: string;
  /** The pinning the tool asked for when it started the server itself. */
  affinity?: { requested: string | null; applied: boolean; reason?: string };
  /** Anything that makes the figures less trustworthy (processes came or went, no /proc, …). */
  warnings: string[];
  /** Self time of the Worker's isolate over part of the window, when the run was profiled. */
  profile?: ProfileSummary;
}

/**
 * Reads the server's processes now. `known` (pid → role, from an earlier full read) limits the
 * read to those processes: the cheap per-second samples.
 */
export function takeSample(rootPid: number, known?: ReadonlyMap<number, WorkerdRole>): CpuSample {
  const procs: ProcStat[] = known
    ? [...known.keys()].map(readProcStat).filter((p): p is ProcStat => p !== null)
    : serverProcesses(listProcesses(), rootPid);
  return {
    atMs: performance.timeOrigin + performance.now(),
    procs: procs
      .filter((p) => p.state !== "Z" && p.state !== "X")
      .map((p) => ({ pid: p.pid, comm: p.comm, role: known?.get(p.pid) ?? processRole(p), starttime: p.starttime, ticks: p.utime + p.stime })),
  };
}

/**
 * CPU ticks the processes selected by `pick` used between two samples. A process is matched by
 * pid and start time; one present only at the end counts from zero (it started in between), and
 * any mismatch is reported as `changed` because CPU of a process that exited is lost.
 */
export function ticksBetween(
  start: CpuSample,
  end: CpuSample,
  pick: (comm: string) => boolean,
  onlyPid?: number,
): { ticks: number; changed: boolean } {
  const take = (p: { pid: number; comm: string }): boolean => pick(p.comm) && (onlyPid === undefined || p.pid === onlyPid);
  const before = new Map(start.procs.filter(take).map((p) => [`${p.pid}/${p.starttime}`, p.ticks]));
  let ticks = 0;
  let changed = false;
  let matched = 0;
  for (const p of end.procs) {
    if (!take(p)) continue;
    const b = before.get(`${p.pid}/${p.starttime}`);
    if (b === undefined) changed = true;
    else matched++;
    ticks += p.ticks - (b ?? 0);
  }
  if (matched !== before.size) changed = true;
  return { ticks, changed };
}

/** % of one core: CPU seconds over wall seconds × 100, rounded to 0.1. */
export function cpuPercent(ticks: number, clkTck: number, wallMs: number): number | null {
  if (!(wallMs > 0) || !(clkTck > 0)) return null;
  return Math.round(((ticks / clkTck) / (wallMs / 1000)) * 1000) / 10;
}

const isOther = (comm: string): boolean => comm !== "workerd";

/**
 * The report section from the window's samples (first = start, last = end) and the messages the
 * generator counted over the same window.
 */
export function summarizeServerCpu(args: {
  rootPid: number;
  samples: readonly CpuSample[];
  clkTck: number;
  messages: number;
  cpusAllowed: string | null;
  onlineCpus: readonly number[];
  warnings?: string[];
}): ServerCpuReport {
  const { samples, clkTck } = args;
  const warnings = [...(args.warnings ?? [])];
  const first = samples[0];
  const last = samples[samples.length - 1];
  const workerd = (comm: string): boolean => isWorkerd({ comm });
  let cpuPct: number | null = null;
  let otherCpuPct: number | null = null;
  let cpuUsPerMsg: number | null = null;
  const byProcess: ServerCpuReport["workerd"] = [];
  const wallMs = first && last ? last.atMs - first.atMs : 0;
  if (samples.length >= 2 && wallMs > 0) {
    const w = ticksBetween(first, last, workerd);
    if (!first.procs.some((p) => workerd(p.comm))) warnings.push("no workerd process found at the window's start");
    if (w.changed) warnings.push("workerd processes changed during the window (restart or reload): CPU of an exited process is missing");
    cpuPct = cpuPercent(w.ticks, clkTck, wallMs);
    otherCpuPct = cpuPercent(ticksBetween(first, last, isOther).ticks, clkTck, wallMs);
    for (const p of last.procs) {
      if (!workerd(p.comm)) continue;
      const one = ticksBetween(first, last, workerd, p.pid);
      byProcess.push({ pid: p.pid, role: p.role, cpuPct: cpuPercent(one.ticks, clkTck, wallMs) });
    }
    if (args.messages > 0) cpuUsPerMsg = Math.round(((w.ticks / clkTck) * 1e6 * 100) / args.messages) / 100;
    // CPU time advances in whole ticks (10 ms at 100 Hz): say so when that is a large share.
    if (wallMs < 2_000) warnings.push(`window of ${Math.round(wallMs)} ms is short for ${1000 / clkTck} ms CPU ticks: figures are coarse`);
  } else {
    warnings.push("fewer than two CPU samples in the window: no CPU figure");
  }
  const series: CpuSeriesPoint[] = [];
  for (let i = 1; i < samples.length; i++) {
    const pct = cpuPercent(ticksBetween(samples[i - 1], samples[i], workerd).ticks, clkTck, samples[i].atMs - samples[i - 1].atMs);
    if (pct !== null) series.push({ tSec: Math.round((samples[i].atMs - first.atMs) / 100) / 10, cpuPct: pct });
  }
  const allowed = args.cpusAllowed === null ? [] : parseCpuList(args.cpusAllowed);
  return {
    rootPid: args.rootPid,
    workerdPids: [...new Set(samples.flatMap((s) => s.procs.filter((p) => workerd(p.comm)).map((p) => p.pid)))],
    workerd: byProcess,
    otherProcesses: dedupe(samples.flatMap((s) => s.procs.filter((p) => isOther(p.comm)).map((p) => ({ pid: p.pid, comm: p.comm })))),
    clockTicksPerSec: clkTck,
    window: { startedAt: first ? new Date(first.atMs).toISOString() : "", seconds: Math.round(wallMs) / 1000 },
    cpuPct,
    cpuUsPerMsg,
    messages: args.messages,
    otherCpuPct,
    samples: samples.length,
    series,
    pinned: allowed.length > 0 && allowed.length < args.onlineCpus.length,
    cpusAllowed: args.cpusAllowed,
    onlineCpus: formatCpuList(args.onlineCpus),
    warnings,
  };
}

function dedupe(list: { pid: number; comm: string }[]): { pid: number; comm: string }[] {
  const seen = new Map<number, { pid: number; comm: string }>();
  for (const p of list) seen.set(p.pid, p);
  return [...seen.values()].sort((a, b) => a.pid - b.pid);
}

/** "0-1,3" from [0, 1, 3]. */
export function formatCpuList(cpus: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cpus.length; ) {
    let j = i;
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j] + 1) j++;
    parts.push(j > i ? `${cpus[i]}-${cpus[j]}` : `${cpus[i]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/**
 * Samples a server's CPU over [startAtMs, endAtMs] (epoch ms): the start, once a second, and the
 * end. Processes are found at the start and again at the end (to notice restarts); the
 * per-second samples read only the known pids.
 */
export class ServerCpuSampler {
  private readonly samples: CpuSample[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private done: Promise<void> | null = null;
  private readonly warnings: string[] = [];
  private known = new Map<number, WorkerdRole>();

  constructor(readonly rootPid: number) {}

  /** Checks that /proc and the root process are there; returns a reason when sampling cannot work. */
  static problem(rootPid: number): string | null {
    if (!procAvailable()) return "no /proc on this machine: server CPU cannot be read";
    if (readProcStat(rootPid) === null) return `no process ${rootPid}`;
    if (!serverProcesses(listProcesses(), rootPid).some(isWorkerd)) return `no workerd process in process group/descendants of ${rootPid}`;
    return null;
  }

  /** Schedules the samples; the returned promise settles after the last one. */
  run(startAtMs: number, endAtMs: number): Promise<void> {
    this.done ??= new Promise<void>((resolve) => {
      const step = (k: number): void => {
        const now = Date.now();
        const last = now >= endAtMs - 5;
        this.samples.push(k === 0 || last ? takeSample(this.rootPid) : takeSample(this.rootPid, this.known));
        if (k === 0) this.known = new Map(this.samples[0].procs.map((p) => [p.pid, p.role]));
        if (last) {
          this.timer = null;
          resolve();
          return;
        }
        const next = Math.min(endAtMs, startAtMs + (k + 1) * 1000);
        this.timer = setTimeout(() => step(k + 1), Math.max(0, next - Date.now()));
      };
      this.timer = setTimeout(() => step(0), Math.max(0, startAtMs - Date.now()));
    });
    return this.done;
  }

  /**
   * workerd CPU (% of one core) between the last two samples, for the live progress line; null
   * before the window's second sample.
   */
  latestCpuPct(): number | null {
    const n = this.samples.length;
    if (n < 2) return null;
    const [a, b] = [this.samples[n - 2]!, this.samples[n - 1]!];
    return cpuPercent(ticksBetween(a, b, (comm) => comm === "workerd").ticks, clockTicksPerSec(), b.atMs - a.atMs);
  }

  /** Stops sampling early (e.g. the run failed). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The report section; `messages` = client INPUT frames + FRAMEs received during the window. */
  result(messages: number): ServerCpuReport {
    // The worker's affinity is the server's: the dev proxy may have been moved to the generator's cores.
    const workerds = this.samples[0]?.procs.filter((p) => p.comm === "workerd") ?? [];
    const workerdPid = (workerds.find((p) => p.role === "worker") ?? workerds[0])?.pid;
    return summarizeServerCpu({
      rootPid: this.rootPid,
      samples: this.samples,
      clkTck: clockTicksPerSec(),
      messages,
      cpusAllowed: workerdPid === undefined ? null : cpusAllowed(workerdPid),
      onlineCpus: onlineCpus(os.cpus().length),
      warnings: this.warnings,
    });
  }
}
