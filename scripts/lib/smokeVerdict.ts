/**
 * What the demo step of `npm run dev` (scripts/dev-smoke.ts) says about its run in plain words,
 * beside the load tool's summary table: what it checked, and, when the table says "GENERATOR
 * SATURATED", that this is about the machine running the bots, not about the room, and not a
 * failure of the demo.
 */
import type { Report } from "../../tools/loadtest/src/index";

/** The lines the demo prints after the summary (each starts with `smoke:` or is indented under one). */
export function explainSmoke(report: Pick<Report, "status" | "saturationReasons" | "summary">, bots: number): string[] {
  const s = report.summary;
  const lines = [
    `smoke: what this run checks: ${s.clients.joined} of ${bots} bots joined the room, played for a few seconds, ` +
      `${s.inputs.acked} of ${s.inputs.sent} inputs were acknowledged, and the room reported its own tk:stats.`,
  ];
  if (report.status !== "ok") {
    lines.push(
      'smoke: about "GENERATOR SATURATED" above: the load tool checks that it kept its own schedule while it ran the bots.',
      "       On this machine it could not (other programs were busy on the same CPUs), so its timing rows (RTT, frame gaps,",
      "       jitter) describe this machine's load, not the room. It is not a failure of the demo, which only needs the bots",
      "       to join, play and be answered. For figures worth comparing, run `npm run loadtest` on a quiet machine",
      "       (tools/loadtest/README.md).",
    );
  }
  return lines;
}
