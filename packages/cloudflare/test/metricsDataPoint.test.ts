/** How a room's metric point is laid out in Workers Analytics Engine (metricsDataPoint.ts): the documented columns. */
import { describe, expect, it } from "vitest";
import { METRIC_DOUBLES, metricsDataPoint } from "../src/metricsDataPoint";

describe("metric points", () => {
  it("are laid out as documented: index1 the kind, blobs kind and room, doubles in METRIC_DOUBLES order", () => {
    const p = { at: 1, intervalMs: 60_000, kind: "agar", roomId: "r1", clients: 3, seats: 4, frames: 5, bytesOut: 6, bytesIn: 7, messagesIn: 8, errors: 9, closes: 10, flushP99Ms: 1.5 };
    expect(metricsDataPoint(p)).toEqual({ indexes: ["agar"], blobs: ["agar", "r1"], doubles: [3, 4, 5, 6, 7, 8, 9, 10, 1.5, 60_000] });
    expect(METRIC_DOUBLES).toHaveLength(10);
  });
});
