/**
 * Reading a local server's processes from Linux /proc: which processes make up a `wrangler dev`
 * (its process group plus descendants), their CPU time (utime + stime) and the cores they may run
 * on. Parsing is pure so it can be tested on fixed text; reading tolerates processes that exit
 * mid-scan.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** The fields of /proc/<pid>/stat this tool uses. */
export interface ProcStat {
  pid: number;
  /** Command name (the kernel's 15-character `comm`). */
  comm: string;
  /** One-letter state: R, S, D, Z, … */
  state: string;
  ppid: number;
  pgrp: number;
  /** User-mode CPU time, clock ticks. */
  utime: number;
  /** Kernel-mode CPU time, clock ticks. */
  stime: number;
  /** Start time after boot, clock ticks (tells a reused pid from the original). */
  starttime: number;
}

/**
 * Parses one /proc/<pid>/stat line. The command name sits in parentheses and may itself hold
 * spaces and parentheses, so fields are counted from the last ")". Returns null on malformed text.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // After ") ": state(3) ppid(4) pgrp(5) session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) … starttime(22)
  const f = text.slice(close + 2).trim().split(/\s+/);
  if (f.length < 20) return null;
  const num = (i: number): number => Number(f[i]);
  const st: ProcStat = {
    pid,
    comm: text.slice(open + 1, close),
    state: f[0],
    ppid: num(1),
    pgrp: num(2),
    utime: num(11),
    stime: num(12),
    starttime: num(19),
  };
  return Number.isInteger(st.pid) && Number.isFinite(st.utime) && Number.isFinite(st.stime) ? st : null;
}

/** Reads /proc/<pid>/stat; null when the process is gone (or /proc is missing). */
export function readProcStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/** Every live process's stat (zombies included; callers filter). */
export function listProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = readProcStat(Number(name));
    if (st) out.push(st);
  }
  return out;
}

/**
 * The processes of a server rooted at `rootPid`: members of its process group, and every
 * descendant of the root (in case a child moved to a group of its own). Zombies are left out.
 */
export function serverProcesses(all: readonly ProcStat[], rootPid: number): ProcStat[] {
  const root = all.find((p) => p.pid === rootPid);
  if (!root) return [];
  const picked = new Map<number, ProcStat>();
  for (const p of all) if (p.pgrp === root.pgrp && root.pgrp > 1) picked.set(p.pid, p);
  picked.set(root.pid, root);
  // Descendants: grow the set until no process has a picked parent that is not yet picked.
  for (let grew = true, rounds = 0; grew && rounds < 64; rounds++) {
    grew = false;
    for (const p of all) {
      if (!picked.has(p.pid) && picked.has(p.ppid)) {
        picked.set(p.pid, p);
        grew = true;
      }
    }
  }
  return [...picked.values()].filter((p) => p.state !== "Z" && p.state !== "X").sort((a, b) => a.pid - b.pid);
}

/** True for the process that runs the Worker and its Durable Objects. */
export function isWorkerd(p: Pick<ProcStat, "comm">): boolean {
  return p.comm === "workerd";
}

/**
 * What a workerd process of `wrangler dev` does, from its command line: wrangler runs the Worker
 * (and every Durable Object) in one workerd with the devtools inspector, and, in front of it, a
 * proxy workerd on the public port that every request and WebSocket message passes through.
 * The proxy is a local-development artifact: deployed Workers have no such hop.
 */
export type WorkerdRole = "worker" | "proxy" | "unknown" | "other";

/** Role of a process from its argv (NUL-separated /proc cmdline text). */
export function roleFromCmdline(comm: string, cmdline: string): WorkerdRole {
  if (comm !== "workerd") return "other";
  return cmdline.includes("--inspector-addr") ? "worker" : "proxy";
}

/** Role of a live process (reads /proc/<pid>/cmdline; "other" when unreadable). */
export function processRole(p: Pick<ProcStat, "pid" | "comm">): WorkerdRole {
  try {
    return roleFromCmdline(p.comm, readFileSync(`/proc/${p.pid}/cmdline`, "utf8"));
  } catch {
    return p.comm === "workerd" ? "unknown" : "other";
  }
}

let clkTck: number | undefined;

/** Clock ticks per second of /proc CPU times (`getconf CLK_TCK`; 100 when that fails). */
export function clockTicksPerSec(): number {
  if (clkTck === undefined) {
    try {
      const v = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8", timeout: 5_000 }).trim());
      clkTck = Number.isInteger(v) && v > 0 ? v : 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/** Expands a CPU list ("0-2,5") into core numbers; [] for malformed text. */
export function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.trim().split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) return [];
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    for (let c = a; c <= b && out.length < 4096; c++) out.push(c);
  }
  return out;
}

/** The `Cpus_allowed_list` of a process (e.g. "0"), or null when unreadable. */
export function cpusAllowed(pid: number): string | null {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? m[1] : null;
  } catch {
    return null;
  }
}

/** Cores the kernel has online (from /sys; falls back to `fallback`). */
export function onlineCpus(fallback: number): number[] {
  try {
    const cpus = parseCpuList(readFileSync("/sys/devices/system/cpu/online", "utf8"));
    return cpus.length ? cpus : range(fallback);
  } catch {
    return range(fallback);
  }
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Whether CPU accounting through /proc works on this machine. */
export function procAvailable(): boolean {
  return existsSync("/proc/self/stat");
}
