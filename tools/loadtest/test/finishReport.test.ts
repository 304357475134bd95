import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { finishReport } from "../src/commands/finishReport";
import { ticketMode, ticketSpec } from "../src/players/tickets";
import { readReport } from "../src/report/reportFiles";
import { ExitCode } from "../src/report/verdict";
import { report, room } from "./fixtures";

let dir = "";
let printed: string[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lt-finish-"));
  printed = [];
  vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe("finishReport", () => {
  it("unjudged (merge, bench-generator): writes into the directory, prints summary and path, passes whatever happened", () => {
    const r = report([room("t-0", { joined: 0, planned: 10 })]);
    expect(finishReport(r, { outDir: dir })).toBe(ExitCode.pass);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-t\.json$/);
    expect(r.verdict).toBeUndefined();
    expect(printed[0]).toMatch(/^== t /);
    expect(printed[1]).toBe(`\nreport: ${join(dir, files[0]!)}`);
    expect(printed.join("\n")).not.toMatch(/could not run/);
  });

  it("writes exactly the file given (merge -o), the same JSON readReport reads back", () => {
    const r = report([room("t-0", { acks: [5, 6] })]);
    const file = join(dir, "merged.json");
    finishReport(r, { file });
    expect(readReport(file)).toEqual(r);
    expect(printed).toContain(`\nreport: ${file}`);
  });

  it("judged (run, gate): the verdict goes into the report and decides the exit code; HTML beside the JSON when asked", () => {
    const failing = report([room("t-0", { acks: [50, 60] })]);
    expect(finishReport(failing, { outDir: dir, html: true, judge: { name: "run", thresholds: ["ack.p99<10"] } })).toBe(ExitCode.thresholdFailed);
    expect(failing.verdict).toMatchObject({ name: "run", valid: true, passed: false });
    expect(printed.join("\n")).toMatch(/run: FAIL/);
    const html = printed.find((l) => l.startsWith("html:"))!.replace(/^html:\s+/, "");
    expect(existsSync(html)).toBe(true);
    const passing = report([room("t-0", { acks: [5] })]);
    expect(finishReport(passing, { outDir: dir, judge: { name: "gate smoke", thresholds: ["ack.p99<10"] } })).toBe(ExitCode.pass);
    expect(passing.verdict?.passed).toBe(true);
    expect(finishReport(report([room("t-0", { acks: [5] })]), { outDir: dir, judge: { name: "run", thresholds: [] } })).toBe(ExitCode.pass);
  });

  it("judged: a saturated generator is an invalid run; nobody joined is could-not-run, with the reasons", () => {
    expect(finishReport(report([room("t-0", { acks: [5] })], { eldP99: 500 }), { outDir: dir, judge: { name: "run", thresholds: [] } })).toBe(ExitCode.invalidRun);
    const nobody = report([room("t-0", { joined: 0, planned: 4 })]);
    nobody.rooms[0]!.failureReasons = { ECONNREFUSED: 4 };
    nobody.summary.failureReasons = { ECONNREFUSED: 4 };
    expect(finishReport(nobody, { outDir: dir, judge: { name: "run", thresholds: [] } })).toBe(ExitCode.couldNotRun);
    expect(printed.join("\n")).toMatch(/could not run: no player joined \(\{"ECONNREFUSED":4\}\)/);
  });
});

describe("ticket sources", () => {
  it("one source at most; the config records its mode and URL, never the secret", () => {
    expect(ticketSpec({})).toBeUndefined();
    expect(ticketSpec({ secret: "" })).toBeUndefined();
    expect(ticketSpec({ secret: "s3cret" })).toEqual({ mode: "secret", secret: "s3cret" });
    expect(ticketSpec({ url: "https://api.example/tickets" })).toEqual({ mode: "url", url: "https://api.example/tickets" });
    expect(() => ticketSpec({ secret: "s3cret", url: "https://api.example/tickets" })).toThrow(/pick one ticket source/);
    expect(ticketMode(undefined)).toEqual({ mode: "none" });
    expect(ticketMode({ mode: "url", url: "https://api.example/tickets" })).toEqual({ mode: "url", url: "https://api.example/tickets" });
    expect(JSON.stringify(ticketMode({ mode: "secret", secret: "s3cret" }))).toBe('{"mode":"secret"}');
  });
});
