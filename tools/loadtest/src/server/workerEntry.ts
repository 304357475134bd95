/**
 * The worker's own entry socket under `wrangler dev`. Wrangler puts a proxy workerd in front of
 * the workerd that runs the Worker and its objects; every WebSocket message passes both. The
 * proxy is a local-development artifact (no such hop on the edge), and on a two-core machine it
 * shares the generator's core: at 300 players it takes ~40 % of that core and the generator falls
 * behind its schedule. A load run can skip it by connecting to the worker's entry socket.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { isWorkerd, listProcesses, processRole, serverProcesses } from "./procStat";

/** Which hop a run's sockets go through under `wrangler dev`. */
export type DevHop = "direct" | "dev-proxy";

/**
 * Listening loopback TCP ports of one process, from /proc/<pid>/net/tcp (state 0A = LISTEN)
 * matched against the socket inodes among its file descriptors.
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link.startsWith("socket:[")) inodes.add(link.slice(8, -1));
      } catch {
        // fd closed while reading
      }
    }
    return parseListening(readFileSync(`/proc/${pid}/net/tcp`, "utf8"), inodes);
  } catch {
    return [];
  }
}

/** Ports in LISTEN state whose socket inode is in `inodes`, from /proc/net/tcp text. */
export function parseListening(tcpTable: string, inodes: ReadonlySet<string>): number[] {
  const ports: number[] = [];
  for (const line of tcpTable.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== "0A" || !inodes.has(f[9])) continue;
    const port = parseInt(f[1].split(":")[1] ?? "", 16);
    if (Number.isInteger(port) && port > 0) ports.push(port);
  }
  return ports.sort((a, b) => a - b);
}

/**
 * The worker workerd's entry URL (`ws://127.0.0.1:<port>`) of the `wrangler dev` rooted at
 * `rootPid`: its listening ports are the entry, the inspector and the debug port; the entry is
 * the one whose `GET /health` answers 200 like the public port does. Null when none does.
 */
export async function workerEntryUrl(rootPid: number): Promise<string | null> {
  const worker = serverProcesses(listProcesses(), rootPid).find((p) => isWorkerd(p) && processRole(p) === "worker");
  if (!worker) return null;
  for (const port of listeningPorts(worker.pid)) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(3_000) });
      await res.arrayBuffer();
      if (res.status === 200) return `ws://127.0.0.1:${port}`;
    } catch {
      // not an HTTP socket (or not answering): try the next
    }
  }
  return null;
}
