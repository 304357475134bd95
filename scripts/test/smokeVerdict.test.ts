/**
 * The demo step of `npm run dev` explains its verdict in plain words: what it checked, and that
 * "GENERATOR SATURATED" is about the machine, not the room, and not a failure of the demo.
 */
import { describe, expect, it } from "vitest";
import { explainSmoke } from "../lib/smokeVerdict";

const summary = { clients: { joined: 8 }, inputs: { acked: 790, sent: 800 } } as Parameters<typeof explainSmoke>[0]["summary"];

describe("explainSmoke", () => {
  it("says what the run checked", () => {
    const lines = explainSmoke({ status: "ok", saturationReasons: [], summary }, 8);
    expect(lines).toEqual(["smoke: what this run checks: 8 of 8 bots joined the room, played for a few seconds, 790 of 800 inputs were acknowledged, and the room reported its own tk:stats."]);
  });

  it("explains a saturated generator: the machine's load, not the room, and not a failure", () => {
    const lines = explainSmoke({ status: "generator_saturated", saturationReasons: ["shard 1/1: 91.20% of inputs on schedule (< 99% within 5 ms)"], summary }, 8);
    const text = lines.join("\n");
    expect(text).toContain('about "GENERATOR SATURATED"');
    expect(text).toMatch(/describe this machine's load, not the room/);
    expect(text).toMatch(/It is not a failure of the demo/);
    expect(text).toContain("npm run loadtest");
    for (const l of lines) expect(l).toMatch(/^(smoke: | {7})/);
  });
});
