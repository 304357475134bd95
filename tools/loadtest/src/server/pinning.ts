/**
 * Which cores a local server and the generator get when the tool starts the server itself, so
 * they do not take time from each other (`taskset -c`), and which hop the generator's sockets take.
 */
import os from "node:os";
import { hasTaskset } from "@tikron/devserver";
import { onlineCpus } from "./procStat";
import { formatCpuList } from "./serverCpu";
import type { DevHop } from "./workerEntry";

/** Which cores the server and the generator get, and which hop the generator's sockets take. */
export interface Pinning {
  /** `taskset -c` list for wrangler/workerd, or null for no pinning. */
  serverCpus: string | null;
  /** `taskset -c` list for the generator's process, or null. */
  generatorCpus: string | null;
  /** Why pinning is off or partial, when it is. */
  note?: string;
  /**
   * "direct" (default): sockets go to the worker's own entry socket, past wrangler's dev proxy
   * (not on the edge; see workerEntry.ts). "dev-proxy": through the public port, as a browser would.
   */
  hop?: DevHop;
}

/**
 * The default split: the server on core 0 and the generator on the other cores when the machine
 * has at least two and `taskset` exists; otherwise nothing pinned, and the note says so.
 */
export function defaultPinning(): Pinning {
  const cpus = onlineCpus(os.cpus().length);
  if (cpus.length < 2) return { serverCpus: null, generatorCpus: null, note: `only ${cpus.length} core: server and generator share it` };
  if (!hasTaskset()) return { serverCpus: null, generatorCpus: null, note: "taskset not found: server and generator run unpinned" };
  return { serverCpus: String(cpus[0]), generatorCpus: formatCpuList(cpus.slice(1)) };
}
