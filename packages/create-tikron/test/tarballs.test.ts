import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { localTikronPackages, readPackedManifest, readTarEntry, tarballName } from "../src/tarballs";
import { packedPackage, tempDirs } from "./support";

const tmp = tempDirs("create-tikron-tar-");

/** A gzipped tar of `entries` written by the system's tar in `format`: the reader's naive twin. */
function tarOf(entries: readonly { path: string; data: Uint8Array }[], format: string): Uint8Array {
  const root = tmp();
  for (const e of entries) {
    mkdirSync(dirname(join(root, "in", e.path)), { recursive: true });
    writeFileSync(join(root, "in", e.path), e.data);
  }
  const out = join(root, "a.tgz");
  const r = spawnSync("tar", ["-czf", out, `--format=${format}`, "-C", join(root, "in"), ...entries.map((e) => e.path)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tar failed: ${r.stderr}`);
  return readFileSync(out);
}

const segment = fc.stringMatching(/^[a-z0-9_][a-z0-9_.-]{0,39}$/).filter((s) => s !== "package");
const entry = fc.record({ path: fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join("/")), data: fc.uint8Array({ maxLength: 1500, size: "max" }) });

describe("readTarEntry", () => {
  it("finds package/package.json among any other entries, and every short-named entry, as tar wrote them", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(entry, { selector: (e) => e.path.split("/")[0], maxLength: 6 }),
        fc.uint8Array({ minLength: 1, maxLength: 1200, size: "max" }),
        fc.nat(6),
        fc.constantFrom("gnu", "ustar", "pax"),
        (others, manifest, at, format) => {
          const target = { path: "package/package.json", data: manifest };
          // Long names exist only in gnu and pax (a ustar name is at most 255 bytes with its prefix).
          const kept = format === "ustar" ? others.filter((e) => e.path.length <= 100) : others;
          const entries = [...kept.slice(0, at), target, ...kept.slice(at)];
          const archive = tarOf(entries, format);
          expect(readTarEntry(archive, target.path)).toEqual(manifest);
          for (const e of kept) if (e.path.length <= 100) expect(readTarEntry(archive, e.path), e.path).toEqual(e.data);
          expect(readTarEntry(archive, "package/missing.json")).toBeUndefined();
        },
      ),
      // Each case runs tar: report the first failure rather than shrink it for minutes.
      { numRuns: 40, endOnFailure: true },
    );
  });

  it("reads a ustar name split into prefix and name", () => {
    const path = `${"d".repeat(90)}/${"e".repeat(60)}/file.txt`;
    const data = new TextEncoder().encode("split");
    expect(readTarEntry(tarOf([{ path, data }], "ustar"), path)).toEqual(data);
  });
});

describe("readPackedManifest", () => {
  it("reads name, version and dependencies; refuses what is not a packed package", () => {
    const dir = tmp();
    const file = packedPackage(dir, "@tikron/core", "0.1.0", { "@tikron/aoi": "0.1.0" });
    expect(readPackedManifest(file)).toEqual({ name: "@tikron/core", version: "0.1.0", dependencies: { "@tikron/aoi": "0.1.0" } });
    writeFileSync(join(dir, "junk.tgz"), "not gzip");
    expect(() => readPackedManifest(join(dir, "junk.tgz"))).toThrow(/junk\.tgz is not a packed package/);
  });
});

describe("localTikronPackages", () => {
  it("finds the wanted tarballs and every @tikron package they depend on", () => {
    const dir = tmp();
    packedPackage(dir, "@tikron/protocol", "0.1.0");
    packedPackage(dir, "@tikron/aoi", "0.1.0");
    packedPackage(dir, "@tikron/core", "0.1.0", { "@tikron/protocol": "0.1.0", "@tikron/aoi": "0.1.0" });
    packedPackage(dir, "@tikron/node", "0.1.0", { "@tikron/core": "0.1.0", ws: "8.23.0" });
    expect(localTikronPackages(dir, ["@tikron/core"], "0.1.0")).toEqual({
      "@tikron/core": join(dir, "tikron-core-0.1.0.tgz"),
      "@tikron/protocol": join(dir, "tikron-protocol-0.1.0.tgz"),
      "@tikron/aoi": join(dir, "tikron-aoi-0.1.0.tgz"),
    });
  });

  it("names a missing dependency, what the directory holds, and how to pack it", () => {
    const dir = tmp();
    packedPackage(dir, "@tikron/core", "0.1.0", { "@tikron/aoi": "0.1.0" });
    packedPackage(dir, "@tikron/aoi", "0.2.0");
    expect(() => localTikronPackages(dir, ["@tikron/core"], "0.1.0")).toThrow(
      /tikron-aoi-0\.1\.0\.tgz \(@tikron\/aoi 0\.1\.0\) is missing; the directory holds tikron-aoi-0\.2\.0\.tgz, tikron-core-0\.1\.0\.tgz\. Pack this version again with `npm run pack/,
    );
  });

  it("refuses a tarball whose manifest is another package, and a directory that does not exist", () => {
    const dir = tmp();
    const file = packedPackage(dir, "@tikron/aoi", "0.1.0");
    writeFileSync(join(dir, tarballName("@tikron/core", "0.1.0")), readFileSync(file));
    expect(() => localTikronPackages(dir, ["@tikron/core"], "0.1.0")).toThrow(/holds @tikron\/aoi 0\.1\.0, not @tikron\/core 0\.1\.0/);
    expect(() => localTikronPackages(join(dir, "nope"), ["@tikron/core"], "0.1.0")).toThrow(/no such directory/);
  });
});
