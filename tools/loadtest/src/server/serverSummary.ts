/** How a run's server CPU section reads in the console summary, and the messages it divides by. */
import type { RoomCounters } from "../metrics/roomMetrics";
import type { ServerCpuReport } from "./serverCpu";

/**
 * Messages the server handled in the steady window, as the generator counted them: INPUT frames
 * the clients sent plus FRAMEs they received after the ramp, up to the window's end.
 */
export function steadyMessages(c: Pick<RoomCounters, "inputFrames" | "framesRx" | "inputFramesBeforeSteady" | "framesRxBeforeSteady">): number {
  return c.inputFrames - (c.inputFramesBeforeSteady ?? 0) + (c.framesRx - (c.framesRxBeforeSteady ?? 0));
}

const fmt = (v: number | null, unit: string): string => (v === null ? "n/a" : `${v}${unit}`);

/** Summary rows (label, text) for the console table. */
export function serverRows(s: ServerCpuReport): [string, string][] {
  const pin = s.pinned ? `pinned to CPU ${s.cpusAllowed}` : `not pinned (CPUs ${s.cpusAllowed ?? "?"} of ${s.onlineCpus})`;
  const asked = s.affinity?.requested && !s.affinity.applied ? ` — pinning to ${s.affinity.requested} asked, not applied: ${s.affinity.reason ?? "?"}` : "";
  const rows: [string, string][] = [
    [
      "server CPU",
      `workerd ${fmt(s.cpuPct, "%")}${s.workerd.length > 1 ? ` (${s.workerd.map((w) => `${w.role} ${fmt(w.cpuPct, "%")}`).join(" + ")})` : ""} of one core over ${s.window.seconds} s steady window, ${fmt(s.cpuUsPerMsg, " µs")}/message (${s.messages} msgs in+out); wrangler ${fmt(s.otherCpuPct, "%")}; ${s.samples} samples, workerd pid ${s.workerdPids.join(",") || "?"}, ${pin}${asked}`,
    ],
  ];
  for (const w of s.warnings) rows.push(["server CPU note", w]);
  return rows;
}
