/**
 * The gateway's meter (gatewayMeter.ts): each request's own time, without its waits on objects;
 * the calls into objects counted by binding (a stats probe's apart); the figures answered at
 * `GET /gateway/stats` in DEV_MODE only; a request's body read bounded, its arrival not the gateway's.
 */
import { describe, expect, it } from "vitest";
import { readBoundedBody } from "@tikron/core/match";
import { gatewayBody, gatewayHold, meteredGateway, type GatewayStats } from "../src/gatewayMeter";

const BASE = "https://rooms.example.com";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spins for `ms` of the thread's time. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

/** A namespace whose objects answer after `waitMs`; `fetch` and an RPC method. */
function namespace(waitMs: number) {
  return {
    idFromName: (name: string) => ({ name }),
    get: (_id: unknown) => ({
      fetch: async (_r: Request) => {
        await sleep(waitMs);
        return new Response("ok");
      },
      // A workerd RPC answers with a callable thenable (an `RpcPromise` pipelines), not a Promise.
      rpc: () => {
        const answer = Object.assign(() => {}, { then: (ok: (v: number) => void) => void sleep(waitMs).then(() => ok(7)) });
        return answer as unknown as Promise<number>;
      },
    }),
  };
}

type Env = { DEV_MODE?: string; ROOMS: ReturnType<typeof namespace>; NAME?: string };

async function stats(env: Env): Promise<GatewayStats> {
  return (await (await meteredGateway(new Request(`${BASE}/gateway/stats`), env, async () => new Response("unrouted"))).json()) as GatewayStats;
}

describe("the gateway's meter", () => {
  it("counts a request's own time, not its waits on objects or on a refusal's hold, and its calls by binding", async () => {
    const env: Env = { DEV_MODE: "true", ROOMS: namespace(300), NAME: "plain" };
    const before = await stats(env);
    const res = await meteredGateway(new Request(`${BASE}/rooms/agar/r1`), env, async (_req, e) => {
      spin(5);
      const stub = e.ROOMS.get(e.ROOMS.idFromName("agar:r1"));
      expect(await stub.rpc()).toBe(7);
      expect(e.NAME).toBe("plain");
      await gatewayHold(300);
      return stub.fetch(_req);
    });
    expect(await res.text()).toBe("ok");
    const after = await stats(env);
    const spent = after.busy.entries!.request! - (before.busy.entries?.request ?? 0);
    expect(spent).toBeGreaterThanOrEqual(4);
    // Three waits of 300 ms each went by: none of them is the gateway's.
    expect(spent).toBeLessThan(250);
    expect(after.requests - before.requests).toBe(1);
    expect((after.objectCalls.ROOMS ?? 0) - (before.objectCalls.ROOMS ?? 0)).toBe(2);
  });

  it("reads a body bounded through its waits, which are not the gateway's, and cancels it past the limit", async () => {
    const env: Env = { DEV_MODE: "true", ROOMS: namespace(1) };
    const enc = new TextEncoder();
    /** A body of `chunks` that arrive `gapMs` apart; `cancelled` says whether its reader gave up. */
    const slowBody = (chunks: string[], gapMs: number) => {
      const state = { cancelled: false };
      let i = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(c) {
          await sleep(gapMs);
          if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]));
          else c.close();
        },
        cancel() {
          state.cancelled = true;
        },
      });
      return { stream, state };
    };
    const before = await stats(env);
    const ok = slowBody(['{"a":', "1}"], 150);
    let read: Awaited<ReturnType<typeof readBoundedBody>> | undefined;
    await meteredGateway(new Request(`${BASE}/match/agar`), env, async () => {
      read = await readBoundedBody({ contentLength: null, body: gatewayBody(ok.stream) }, 100);
      return new Response("ok");
    });
    expect(read).toEqual({ ok: true, text: '{"a":1}' });
    const after = await stats(env);
    // Three gaps of 150 ms went by while the body arrived: none of them is the gateway's.
    expect(after.busy.entries!.request! - (before.busy.entries?.request ?? 0)).toBeLessThan(200);
    const big = slowBody(["x".repeat(200), "y".repeat(200)], 1);
    expect((await readBoundedBody({ contentLength: null, body: gatewayBody(big.stream) }, 50)).ok).toBe(false);
    expect(big.state.cancelled).toBe(true);
    expect(gatewayBody(null)).toBeNull();
  });

  it("files a stats probe's time and calls apart", async () => {
    const env: Env = { DEV_MODE: "true", ROOMS: namespace(1) };
    const before = await stats(env);
    await meteredGateway(new Request(`${BASE}/rooms/agar/r1/stats`), env, async (req, e) => e.ROOMS.get(e.ROOMS.idFromName("agar:r1")).fetch(req));
    const after = await stats(env);
    expect((after.objectCalls["stats:ROOMS"] ?? 0) - (before.objectCalls["stats:ROOMS"] ?? 0)).toBe(1);
    expect(after.objectCalls.ROOMS ?? 0).toBe(before.objectCalls.ROOMS ?? 0);
    expect(after.busy.entries?.stats).toBeDefined();
  });

  it("answers its figures in DEV_MODE only", async () => {
    const res = await meteredGateway(new Request(`${BASE}/gateway/stats`), { DEV_MODE: "false", ROOMS: namespace(1) }, async () => new Response("unrouted"));
    expect(res.status).toBe(403);
  });
});
