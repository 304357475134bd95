import { describe, expect, it } from "vitest";
import { versionProblems } from "../check-versions";

describe("published package manifests", () => {
  it("share one version, depend on each other by workspace:*, and the starter pins that version and wrangler's Node", () => {
    expect(versionProblems()).toEqual([]);
  });
});
