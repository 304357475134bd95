/**
 * The gateway's meter (gatewayMeter.ts): each request's own time, without its waits on objects;
 * the calls into objects counted by binding (a stats probe's apart); the figures answered at
 * `GET /gateway/stats` in DEV_MODE only.
 */
import { describe, expect, it } from "vitest";
import { gatewayHold, meteredGateway, type GatewayStats } from "../src/gatewayMeter";

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
