/** Shared assertion of the end-to-end load tests: the generator was not the bottleneck. */
import { expect } from "vitest";
import type { Report } from "../src/index";

/**
 * The generator must not have been the bottleneck. The one accepted exception (the tool's own
 * convention) is a machine that other processes kept busy: then the verdict must say so and
 * the measured machine load must explain it.
 */
export function expectGeneratorHealthy(r: Report): void {
  const g = r.generators[0].process;
  const othersBusyPct = g.machineBusyPercent - g.cpuPercent / r.environment.cpus;
  if (r.status !== "ok") {
    expect(r.saturationReasons.length).toBeGreaterThan(0);
    expect(othersBusyPct, `saturated on a machine only ${othersBusyPct}% busy with other work: ${r.saturationReasons.join("; ")}`).toBeGreaterThan(50);
  } else {
    expect(r.summary.inputs.onSchedulePct).toBeGreaterThanOrEqual(99);
    expect(r.summary.generator.eventLoopP99Ms).toBeLessThanOrEqual(50);
  }
}

