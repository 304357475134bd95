import { describe, expect, it } from "vitest";
import { PAGE_BUNDLE_ENTRY, SDK_BUNDLE_BUDGET_GZIP, measureSdkBundle } from "../bundle-size";
import { buildPackages } from "../build-packages";

describe("SDK browser bundle", () => {
  it("holds no room-core or Cloudflare code and stays within its gzip budget", async () => {
    const report = await measureSdkBundle();
    const paths = report.inputs.map((i) => i.path);
    // Sanity: the measurement really bundled the SDK and the game's codec.
    expect(paths).toContain("packages/client/src/connect.ts");
    expect(paths).toContain("packages/games/src/agar/agarInput.ts");
    expect(paths.filter((p) => p.startsWith("packages/core/") || p.startsWith("packages/cloudflare/"))).toEqual([]);
    // Only agar's declarations were asked for: other games' modules must be shaken out.
    expect(paths.filter((p) => /packages\/games\/src\/(fps|movement|ttt)\//.test(p))).toEqual([]);
    // The room's reader of client frames is server-side code: the SDK only writes them.
    expect(paths).not.toContain("packages/protocol/src/inputFrame.ts");
    expect(report.gzipBytes).toBeLessThanOrEqual(SDK_BUNDLE_BUDGET_GZIP);
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
