/**
 * The gateway Worker's own time, so a join's cost can be read per object (the gateway, the
 * matchmaker, the room; each object meters itself with its core `BusyMeter`). The Worker keeps
 * no state between requests, so this meters per isolate: every request it serves, from its start
 * until it answers, except while it waits on a Durable Object (a fetch or an RPC: that object's
 * time, metered there), on a service binding's fetch (static assets), or on the gate's hold of a
 * refusal; requests in flight at once count once. The calls into objects are counted by binding.
 *
 * DEV_MODE `GET /gateway/stats` answers the figures of the isolate that serves it: under
 * `wrangler dev` there is one isolate, so they are the gateway's; deployed, an isolate is one of
 * many (and `performance.now()` does not advance while code runs: `busy` reads ~0 there). Left
 * out: awaits the meter cannot see into (a sign-in provider's keys fetched, a D1 write of the
 * admin audit) count as the gateway's time while they wait; none is on a DEV_MODE join's path.
 */
import { BusyMeter, type BusyReading } from "@tikron/core";
import { waitedBody } from "@tikron/core/match";

/** The DEV_MODE path of the gateway's figures (a `run_worker_first` path of the Worker's config). */
export const GATEWAY_STATS_PATH = "/gateway/stats";

/** What `GET /gateway/stats` answers. */
export interface GatewayStats {
  /** The isolate's gateway time: `entries.request` its requests, `entries.stats` the stats probes'. */
  busy: BusyReading;
  /** Requests metered (every request but this probe). */
  requests: number;
  /**
   * Calls into Durable Objects and service bindings (fetches and RPCs), by binding name; those
   * a stats probe made under `stats:<binding>`.
   */
  objectCalls: Record<string, number>;
  /** What the figures are. */
  note: string;
}

/** What the meter reads of the Worker's env. */
export interface GatewayMeterEnv {
  /** `"true"`: `GET /gateway/stats` answers. */
  DEV_MODE?: string;
}

const busy = new BusyMeter();
const objectCalls: Record<string, number> = {};
let requests = 0;
const NOTE = "this isolate's own time serving requests, less its waits on objects and bindings (local wrangler dev: one isolate; deployed: one of many, and the clock does not advance while code runs)";

/**
 * Serves `request` with `route` on an env whose Durable Object namespaces and service bindings
 * are metered (see the module comment), or answers DEV_MODE `GET /gateway/stats` itself.
 */
export function meteredGateway<E extends GatewayMeterEnv>(request: Request, env: E, route: (request: Request, env: E) => Promise<Response>): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (path === GATEWAY_STATS_PATH) {
    if (env.DEV_MODE !== "true") return Promise.resolve(new Response("gateway stats are DEV_MODE only", { status: 403 }));
    const stats: GatewayStats = { busy: busy.reading(), requests, objectCalls: { ...objectCalls }, note: NOTE };
    return Promise.resolve(Response.json(stats, { headers: { "cache-control": "no-store" } }));
  }
  requests++;
  const label = path.endsWith("/stats") ? "stats" : "request";
  return busy.during(() => route(request, metered(env, label)), label);
}

/** Holds a refusal `ms` (the gateway's own hold of a repeated caller): not the gateway's time. */
export function gatewayHold(ms: number): Promise<void> {
  return gatewayWait(new Promise<void>((resolve) => setTimeout(resolve, ms)));
}

/** Waits for I/O the gateway cannot do without (a request's body arriving): not the gateway's time. */
export function gatewayWait<T>(io: Promise<T>): Promise<T> {
  return busy.waiting(io);
}

/**
 * A request's body whose chunks' arrival is I/O, not the gateway's time (see {@link gatewayWait};
 * core `waitedBody`), for the core's bounded reader (`readBoundedBody`). Null for no body.
 */
export function gatewayBody(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> | null {
  return waitedBody(body, gatewayWait);
}

/** Metered envs by env and label: the Worker's env is one object per isolate. */
const meteredEnvs = new WeakMap<object, Map<string, object>>();

function metered<E extends object>(env: E, label: string): E {
  let byLabel = meteredEnvs.get(env);
  if (!byLabel) meteredEnvs.set(env, (byLabel = new Map()));
  let m = byLabel.get(label);
  if (!m) {
    const wrapped = new Map<string, unknown>();
    m = new Proxy(env, {
      get(target, key, receiver) {
        const v = Reflect.get(target, key, receiver) as unknown;
        if (typeof key !== "string" || v === null || typeof v !== "object") return v;
        if (!wrapped.has(key)) wrapped.set(key, bindingOf(label === "request" ? key : `${label}:${key}`, v));
        return wrapped.get(key);
      },
    });
    byLabel.set(label, m);
  }
  return m as E;
}

/** A Durable Object namespace whose stubs are metered, a fetcher whose fetch is, anything else as it is. */
function bindingOf(name: string, v: object): unknown {
  const o = v as Record<string, unknown>;
  if (typeof o.idFromName === "function" && typeof o.get === "function") {
    return new Proxy(v, {
      get(target, key) {
        const f = Reflect.get(target, key) as unknown;
        if (typeof f !== "function") return f;
        if (key === "get" || key === "getByName") return (...args: unknown[]) => meteredCalls(name, Reflect.apply(f as (...a: unknown[]) => object, target, args));
        return (f as (...a: unknown[]) => unknown).bind(target);
      },
    });
  }
  if (typeof o.fetch === "function") return meteredCalls(name, v);
  return v;
}

/** An RPC's answer is a thenable, and may be callable too (a workerd `RpcPromise` pipelines). */
function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === "object" || typeof v === "function") && typeof (v as PromiseLike<unknown>).then === "function";
}

/** `target` whose every method call is counted under `name`, its promise awaited outside the gateway's time. */
function meteredCalls(name: string, target: object): object {
  return new Proxy(target, {
    get(t, key) {
      // Never a thenable: nobody awaits a stub itself.
      if (key === "then") return undefined;
      const f = Reflect.get(t, key) as unknown;
      if (typeof f !== "function") return f;
      return (...args: unknown[]) => {
        objectCalls[name] = (objectCalls[name] ?? 0) + 1;
        // Reflect.apply: an RPC stub's method answers any property, `apply` included, as an RPC.
        const out = Reflect.apply(f as (...a: unknown[]) => unknown, t, args);
        return isThenable(out) ? busy.waiting(Promise.resolve(out)) : out;
      };
    },
  });
}
