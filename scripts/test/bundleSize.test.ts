import { describe, expect, it } from "vitest";
import {
  DECLARED_INPUTS_COST_GZIP,
  DECLARED_INPUTS_ENTRY,
  GAME_BUNDLE_BUDGET_GZIP,
  GAME_BUNDLE_ENTRY,
  OPT_IN_ENTRIES,
  PAGE_BUNDLE_ENTRY,
  SDK_BUNDLE_BUDGET_GZIP,
  measureSdkBundle,
} from "../bundle-size";
import { buildPackages } from "../build-packages";

/** Modules a page pays for only when it uses them: interpolation, prediction, the JSON dialect, the matchmaker, parties. */
const OPTIONAL = [
  "packages/client/src/snapshotBuffer.ts",
  "packages/client/src/playoutClock.ts",
  "packages/client/src/entityTrack.ts",
  "packages/client/src/interpolatedView.ts",
  "packages/client/src/sampling.ts",
  "packages/client/src/prediction.ts",
  "packages/protocol/src/jsonMessages.ts",
  "packages/client/src/matchmaker.ts",
  "packages/client/src/seatJoin.ts",
  "packages/client/src/party.ts",
  // What a page opts into by passing or calling it: room messages, snapshot links, input batching.
  "packages/client/src/messaging.ts",
  "packages/client/src/snapshotLink.ts",
];

/** Bytes a module adds to a bundle (0 when it is not in it). */
const bytesOf = (report: { inputs: { path: string; bytes: number }[] }, path: string): number => report.inputs.find((i) => i.path === path)?.bytes ?? 0;

describe("SDK browser bundle", () => {
  it("the whole SDK holds no room-core or Cloudflare code and stays within its gzip budget", async () => {
    const report = await measureSdkBundle();
    const paths = report.inputs.map((i) => i.path);
    // Sanity: the measurement really bundled the SDK, every optional part included.
    expect(paths).toContain("packages/client/src/connect.ts");
    for (const p of OPTIONAL) expect(paths).toContain(p);
    expect(paths.filter((p) => p.startsWith("packages/core/") || p.startsWith("packages/cloudflare/") || p.startsWith("packages/games/"))).toEqual([]);
    // The room's reader of client frames is server-side code: the SDK only writes them.
    expect(paths).not.toContain("packages/protocol/src/inputFrame.ts");
    // So is the reader of declared inputs, with its range checks.
    expect(paths).not.toContain("packages/protocol/src/schema/inputRead.ts");
    expect(report.gzipBytes).toBeLessThanOrEqual(SDK_BUNDLE_BUDGET_GZIP);
  });

  it("a game using only connect and its declaration pays for no interpolation, prediction, JSON dialect or matchmaker, within its budget", async () => {
    const report = await measureSdkBundle(GAME_BUNDLE_ENTRY);
    const paths = report.inputs.map((i) => i.path);
    expect(paths).toContain("packages/client/src/roomConnection.ts");
    expect(paths).toContain("packages/protocol/src/delta/clientView.ts");
    expect(paths.filter((p) => OPTIONAL.includes(p))).toEqual([]);
    // A game with its own input codec ships nothing of declared inputs.
    expect(paths).not.toContain("packages/protocol/src/schema/inputs.ts");
    // The clock sync is passed in (`clock`): only the constant the connection shares with it comes along.
    expect(bytesOf(report, "packages/client/src/clockSync.ts")).toBeLessThan(20);
    // Nor does input batching (its writer and timer).
    expect(bytesOf(report, "packages/client/src/inputs.ts")).toBeLessThan(300);
    // Retries are decided by the rules (backoffDelay, mayRetry), not the Backoff / ReconnectPolicy classes.
    expect(bytesOf(report, "packages/client/src/reconnect.ts")).toBeLessThan(150);
    expect(bytesOf(report, "packages/client/src/backoff.ts")).toBeLessThan(400);
    // The protocol reads its code tables through wireCodes' constants: no Kind or FrameFlag table.
    expect(bytesOf(report, "packages/protocol/src/constants.ts")).toBeLessThan(100);
    expect(paths.filter((p) => p.startsWith("packages/games/"))).toEqual([]);
    expect(report.gzipBytes).toBeLessThanOrEqual(GAME_BUNDLE_BUDGET_GZIP);
  });

  it("declared inputs: a page pays for the writer and the quantization rule (within its cap), never for the room's reader", async () => {
    const [own, declared] = await Promise.all([measureSdkBundle(GAME_BUNDLE_ENTRY), measureSdkBundle(DECLARED_INPUTS_ENTRY)]);
    const paths = declared.inputs.map((i) => i.path);
    expect(paths).toContain("packages/games/src/agar/agarSchema.ts");
    expect(bytesOf(declared, "packages/protocol/src/schema/inputs.ts")).toBeGreaterThan(500);
    expect(paths).not.toContain("packages/protocol/src/schema/inputRead.ts");
    // Only agar's declarations were asked for: other games' modules must be shaken out.
    expect(paths.filter((p) => /packages\/games\/src\/(fps|movement|ttt)\//.test(p))).toEqual([]);
    expect(paths.filter((p) => OPTIONAL.includes(p))).toEqual([]);
    expect(declared.gzipBytes - own.gzipBytes).toBeGreaterThan(0);
    expect(declared.gzipBytes - own.gzipBytes).toBeLessThanOrEqual(DECLARED_INPUTS_COST_GZIP);
  });

  it("a page that opts into one part pulls that one and none of the others", { timeout: 30_000 }, async () => {
    const plain = await measureSdkBundle(GAME_BUNDLE_ENTRY);
    const [clock, messages, batching, errorNames] = await Promise.all(
      [OPT_IN_ENTRIES.clock, OPT_IN_ENTRIES.messages, OPT_IN_ENTRIES.batching, OPT_IN_ENTRIES.errorNames].map((e) => measureSdkBundle(e)),
    );
    expect(bytesOf(clock!, "packages/client/src/clockSync.ts")).toBeGreaterThan(500);
    expect(bytesOf(clock!, "packages/client/src/messaging.ts")).toBe(0);
    expect(bytesOf(messages!, "packages/client/src/messaging.ts")).toBeGreaterThan(300);
    expect(bytesOf(messages!, "packages/client/src/clockSync.ts")).toBeLessThan(20);
    // The requests' encoders (MESSAGE, STATS) come with withMessages, not with the dialect.
    expect(bytesOf(messages!, "packages/protocol/src/roomMessages.ts")).toBeGreaterThan(bytesOf(plain, "packages/protocol/src/roomMessages.ts"));
    expect(bytesOf(messages!, "packages/protocol/src/clientMessages.ts")).toBeGreaterThan(bytesOf(plain, "packages/protocol/src/clientMessages.ts"));
    // So do the readers of the room's answers (readAnswer: STATS; readReply: REPLY).
    expect(bytesOf(messages!, "packages/protocol/src/serverMessages.ts")).toBeGreaterThan(bytesOf(plain, "packages/protocol/src/serverMessages.ts") + 50);
    expect(bytesOf(batching!, "packages/client/src/inputs.ts")).toBeGreaterThan(bytesOf(plain, "packages/client/src/inputs.ts") + 150);
    expect(bytesOf(batching!, "packages/client/src/messaging.ts")).toBe(0);
    // The ErrorCode table comes with errorName: a page that never prints a room's error names ships none.
    expect(bytesOf(errorNames!, "packages/protocol/src/errorCodes.ts")).toBeGreaterThan(bytesOf(plain, "packages/protocol/src/errorCodes.ts") + 250);
    expect(bytesOf(errorNames!, "packages/client/src/messaging.ts")).toBe(0);
    for (const r of [clock!, messages!, batching!, errorNames!]) expect(r.gzipBytes).toBeGreaterThan(plain.gzipBytes);
  });

  it("a page that uses the matchmaker pays for parties only when it calls party()", { timeout: 30_000 }, async () => {
    const [matching, parties] = await Promise.all([OPT_IN_ENTRIES.matchmaker, OPT_IN_ENTRIES.party].map((e) => measureSdkBundle(e)));
    expect(bytesOf(matching!, "packages/client/src/matchmaker.ts")).toBeGreaterThan(1500);
    expect(bytesOf(matching!, "packages/client/src/party.ts")).toBe(0);
    expect(bytesOf(parties!, "packages/client/src/party.ts")).toBeGreaterThan(800);
    expect(bytesOf(parties!, "packages/client/src/messaging.ts")).toBe(0);
    expect(parties!.gzipBytes).toBeGreaterThan(matching!.gzipBytes);
  });

  it("tree-shakes what a page does not import (sideEffects: false, no eager instances)", async () => {
    const whole = await measureSdkBundle();
    const page = await measureSdkBundle(PAGE_BUNDLE_ENTRY);
    const paths = page.inputs.map((i) => i.path);
    expect(paths).toContain("packages/client/src/snapshotBuffer.ts");
    expect(paths).not.toContain("packages/client/src/prediction.ts");
    expect(paths).not.toContain("packages/games/src/agar/agarRules.ts");
    expect(page.gzipBytes).toBeLessThan(whole.gzipBytes);
  });

  it("measures what a game installs: the built dist/ bundles no larger than the sources (+0.75 %)", async () => {
    buildPackages(["protocol", "client"]);
    const sources = await measureSdkBundle();
    const built = await measureSdkBundle(undefined, "dist");
    // Sanity: the aliases took effect (dist modules in, client sources out).
    expect(built.inputs.some((i) => i.path.startsWith("packages/client/dist/"))).toBe(true);
    expect(built.inputs.some((i) => i.path.startsWith("packages/client/src/"))).toBe(false);
    // Deterministic builds, so the margin is not noise: it lets the two outputs order modules
    // differently, and catches savings that only exist in the sources (TS enums: +1.4 %).
    expect(built.gzipBytes).toBeLessThanOrEqual(sources.gzipBytes * 1.0075);
  }, 60_000);
});
