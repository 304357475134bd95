/**
 * Big and endless request bodies: one request that declares `declared` bytes (or none: a chunked
 * body) and writes up to `total` bytes of it, as fast as the connection takes them, until the
 * server answers, closes, or `timeoutMs` passes. What came back and how much was written before
 * the answer says whether the server read the body before refusing it. Bounded in bytes and
 * time; loopback only in the suite.
 */
import { request } from "node:http";

/** How a body request ended. */
export interface BodyProbe {
  /** The answer's status; 0 when none came (the connection failed, or the time ran out). */
  status: number;
  /** The answer's JSON `code` (a match or admin refusal), if any. */
  code?: string;
  /** Bytes of body written before the answer (or the end). */
  written: number;
  /** Time to the answer (ms). */
  ms: number;
}

/** What to send. */
export interface BodyRequest {
  method?: string;
  headers?: Record<string, string>;
  /** The declared `Content-Length`; omitted: a chunked body with no length. */
  declared?: number;
  /** Most bytes written (default `declared`, or 64 MiB). */
  total?: number;
  /** Bytes per write (default 64 KiB). */
  chunk?: number;
  timeoutMs?: number;
}

/** Sends one body (see the module comment). */
export function sendBody(url: string, o: BodyRequest = {}): Promise<BodyProbe> {
  const total = o.total ?? o.declared ?? 64 * 1024 * 1024;
  const chunk = Buffer.alloc(o.chunk ?? 64 * 1024, 0x20);
  const headers: Record<string, string> = { "content-type": "application/json", ...o.headers };
  if (o.declared !== undefined) headers["content-length"] = String(o.declared);
  const t0 = performance.now();
  return new Promise((resolve) => {
    let written = 0;
    let answered = false;
    let done = false;
    const finish = (p: BodyProbe) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(p);
    };
    const req = request(url, { method: o.method ?? "POST", headers, agent: false });
    const timer = setTimeout(() => finish({ status: 0, written, ms: performance.now() - t0 }), o.timeoutMs ?? 30_000);
    req.on("error", () => finish({ status: 0, written, ms: performance.now() - t0 }));
    req.on("response", (res) => {
      answered = true;
      const ms = performance.now() - t0;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c.length < 4096 ? c : ""));
      const end = () => {
        let code: string | undefined;
        try {
          code = (JSON.parse(text) as { code?: string }).code;
        } catch {
          code = undefined;
        }
        finish({ status: res.statusCode ?? 0, ...(code !== undefined ? { code } : {}), written, ms });
      };
      res.on("end", end);
      res.on("error", end);
      res.on("close", end);
    });
    const pump = () => {
      while (!answered && !done && written < total) {
        const n = Math.min(chunk.length, total - written);
        written += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once("drain", pump);
      }
      if (!answered && !done && written >= total) req.end();
    };
    pump();
  });
}
