/**
 * The console as a server sends it: the one build (its page names exactly the script and
 * stylesheet built beside it, and every element the script looks up), the responder's paths and
 * answers, and where the demo's static build puts each file.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { bundleConsole, staticFileName } from "../build";
import { CONSOLE_PATH } from "../src/consoleFile";
import { consoleResponder } from "../src/responder";

const files = bundleConsole();
const byPath = new Map(files.map((f) => [f.path, f]));
const page = byPath.get(CONSOLE_PATH)!;
const serve = consoleResponder(files);
const at = (path: string, method = "GET") => serve(new Request(`https://game.example.com${path}`, { method }));

describe("the console's build", () => {
  it("is a page, its script and its stylesheet, each referenced by the page", () => {
    expect(files.map((f) => [f.path, f.contentType])).toEqual([
      ["/admin", "text/html; charset=utf-8"],
      ["/admin/console.js", "text/javascript; charset=utf-8"],
      ["/admin/console.css", "text/css; charset=utf-8"],
    ]);
    const referenced = [...page.body.matchAll(/(?:href|src)="(\/[^"]*)"/g)].map((m) => m[1]).sort();
    expect(referenced).toEqual(["/admin/console.css", "/admin/console.js"]);
  });

  it("bundles the script whole: no import left for a browser to resolve", () => {
    const script = byPath.get("/admin/console.js")!.body;
    expect(script.length).toBeGreaterThan(2_000);
    expect(script).not.toMatch(/\bimport\s*[{("'*]|\bfrom\s*["']/);
  });

  it("holds every element the script looks up by id", () => {
    const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "src", "console", "admin.ts"), "utf8");
    const ids = [...new Set([...source.matchAll(/byId<\w+>\("([\w-]+)"\)/g)].map((m) => m[1]!))];
    expect(ids.length).toBeGreaterThan(10);
    const missing = ids.filter((id) => !page.body.includes(`id="${id}"`));
    expect(missing).toEqual([]);
  });

  it("goes into a static assets directory where an asset server answers the same paths", () => {
    expect(files.map(staticFileName)).toEqual(["admin.html", "admin/console.js", "admin/console.css"]);
  });
});

describe("consoleResponder", () => {
  it("answers GET of each file with its type and body, the page also at /admin/", async () => {
    for (const f of files) {
      const res = at(f.path)!;
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(f.contentType);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await res.text()).toBe(f.body);
    }
    expect(await at("/admin/")!.text()).toBe(page.body);
  });

  it("answers HEAD without a body", async () => {
    const res = at("/admin", "HEAD")!;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });

  it("leaves every other request to the Worker: the admin API, other paths, other methods", () => {
    for (const path of ["/admin/api/rooms", "/admin/api/", "/admin/other.js", "/administrator", "/", "/admin.html", "/admin/console.js/x"]) {
      expect(at(path), path).toBeUndefined();
    }
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) expect(at("/admin", method), method).toBeUndefined();
  });
});
