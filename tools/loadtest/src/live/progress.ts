import type { LiveSample } from "./series";

const f1 = (v: number | null): string => (v === null ? "-" : v < 10 ? v.toFixed(1) : String(Math.round(v)));

/** One progress line for a sample: what an operator watches while a run goes. */
export function formatProgress(s: LiveSample, totalSec: number): string {
  const w = String(Math.ceil(totalSec)).length;
  const kib = s.downlinkBytesPerSec / 1024;
  const parts = [
    `[${String(Math.round(s.tSec)).padStart(w)}/${Math.ceil(totalSec)}s]`,
    `players ${s.players}/${s.target}`,
    `in ${Math.round(s.inputsPerSec)}/s ack ${Math.round(s.acksPerSec)}/s`,
    `ack p50 ${f1(s.ackP50Ms)} p99 ${f1(s.ackP99Ms)} ms`,
    `gap p99 ${f1(s.frameGapP99Ms)} ms`,
    `${s.framesPerSecPerClient === null ? "-" : s.framesPerSecPerClient.toFixed(1)} fr/s/cl`,
    `down ${kib < 10 ? kib.toFixed(1) : Math.round(kib)} KiB/s`,
    `err ${s.errors} closes ${s.unexpectedCloses}${s.failed ? ` failed ${s.failed}` : ""}`,
  ];
  if (s.dropped) parts.push(`back ${s.reconnected}/${s.dropped}`);
  parts.push(`gen cpu ${Math.round(s.generatorCpuPct)}% loop ${f1(s.eventLoopP99Ms)} ms sched ${s.onSchedulePct === null ? "-" : `${f1(s.onSchedulePct)}%`}`);
  if (s.serverCpuPct !== undefined) parts.push(`server cpu ${Math.round(s.serverCpuPct)}%`);
  return `${parts[0]} ${parts.slice(1).join(" | ")}`;
}

/** Where progress goes; a TTY gets one line redrawn in place, anything else one line per second. */
export interface ProgressOut {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** A progress printer: call with each sample, then `end()` once the run is over. */
export function progressPrinter(out: ProgressOut, totalSec: number): { onSample: (s: LiveSample) => void; end: () => void } {
  let drawn = false;
  return {
    onSample(s) {
      const line = formatProgress(s, totalSec);
      if (out.isTTY) {
        out.write(`\r\x1b[2K${line}`);
        drawn = true;
      } else out.write(`${line}\n`);
    },
    end() {
      if (drawn) out.write("\n");
      drawn = false;
    },
  };
}
