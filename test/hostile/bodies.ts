/**
 * Big and endless request bodies: one request that declares `declared` bytes (or none: a chunked
 * body) and writes up to `total` bytes of it, as fast as the connection takes them, until the
 * server answers, closes, or `timeoutMs` passes. What came back and how much was written before
 * the answer says whether the server read the body before refusing it. Bounded in bytes and
 * time; loopback only in the suite.
 */

/** Whether a body was refused before it was read: answered `status` (413, …), or reset while still being sent (see {@link BodyProbe.reset}). */
export function refusedUnread(p: BodyProbe, status: number, bytes: number): boolean {
  return (p.status === status || p.reset) && p.written < bytes;
}
import { connect } from "node:net";

/** How a body request ended. */
export interface BodyProbe {
  /** The answer's status; 0 when none came (the connection was reset, or the time ran out). */
  status: number;
  /**
   * The server reset the connection while the body was still being sent and no answer was read:
   * a server that answers before reading a body and then closes can lose its own answer that way
   * (the kernel drops what it had not sent yet when it resets a socket with unread data).
   */
  reset: boolean;
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

/**
 * Sends one body (see the module comment) over a plain TCP connection, reading whatever the server
 * answers while writing: a server that answers before it has read the body and then closes the
 * connection (what a runtime does with a body it will not read: the kernel resets the connection)
 * would make an HTTP client lose an answer that did arrive, on the failed write.
 */
export function sendBody(url: string, o: BodyRequest = {}): Promise<BodyProbe> {
  const u = new URL(url);
  const total = o.total ?? o.declared ?? 64 * 1024 * 1024;
  const size = o.chunk ?? 64 * 1024;
  const chunked = o.declared === undefined;
  const data = Buffer.alloc(size, 0x20);
  // A chunk of a chunked body carries its own length line.
  const frame = (n: number) => (chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), data.subarray(0, n), Buffer.from("\r\n")]) : data.subarray(0, n));
  const full = frame(size);
  const headers: Record<string, string> = { host: u.host, "content-type": "application/json", connection: "close", ...o.headers };
  if (chunked) headers["transfer-encoding"] = "chunked";
  else headers["content-length"] = String(o.declared);
  const head = `${o.method ?? "POST"} ${u.pathname}${u.search} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
  const t0 = performance.now();
  return new Promise((resolve) => {
    let written = 0;
    let received = "";
    let answeredAt = 0;
    let done = false;
    let reset = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(received);
      const status = m ? Number(m[1]) : 0;
      const bodyAt = received.indexOf("\r\n\r\n");
      let code: string | undefined;
      if (bodyAt >= 0) {
        const text = received.slice(bodyAt + 4);
        code = /"code":"([a-z_]+)"/.exec(text)?.[1];
      }
      resolve({ status, reset: status === 0 && reset, ...(code !== undefined ? { code } : {}), written, ms: (answeredAt || performance.now()) - t0 });
    };
    const socket = connect({ host: u.hostname, port: Number(u.port) || 80 });
    const timer = setTimeout(finish, o.timeoutMs ?? 30_000);
    socket.on("data", (b: Buffer) => {
      if (answeredAt === 0) answeredAt = performance.now();
      if (received.length < 16_384) received += b.toString("latin1");
      // The whole answer is in once its declared length is (refusals are small).
      const len = /content-length: (\d+)/i.exec(received)?.[1];
      const bodyAt = received.indexOf("\r\n\r\n");
      if (len !== undefined && bodyAt >= 0 && received.length - bodyAt - 4 >= Number(len)) finish();
    });
    socket.on("error", (e: Error & { code?: string }) => {
      if (e.code === "ECONNRESET" || e.code === "EPIPE") reset = true;
    });
    socket.on("close", finish);
    const pump = () => {
      while (answeredAt === 0 && !done && written < total && socket.writable) {
        const n = Math.min(size, total - written);
        written += n;
        if (!socket.write(n === size ? full : frame(n))) return void socket.once("drain", pump);
      }
      if (answeredAt === 0 && !done && written >= total && socket.writable) socket.write(chunked ? "0\r\n\r\n" : "");
    };
    socket.once("connect", () => {
      socket.write(head);
      pump();
    });
  });
}
