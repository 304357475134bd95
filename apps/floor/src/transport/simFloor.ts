/**
 * The simulation of the relay-transport bench: the object that, in a relayed room, runs the world.
 * Driven over HTTP by the load tool's `transport-bench` (`/transport/start|reset|read|stop|clock`),
 * it starts K relays, sends each one world update of S bytes every interval by the run's
 * transport (the same bytes to every relay, as a real flush would), and counts the relays'
 * batched inputs (arrivals, one-way latency, order). Both ends stamp messages with `Date.now()`:
 * under local `wrangler dev` every object shares one thread and one clock (`/transport/clock`
 * shows how finely that clock advances inside one request).
 */
import { DurableObject, RpcTarget } from "cloudflare:workers";
import { Arrivals } from "./arrivals";
import { parseBenchConfig, type BenchConfig, type BenchReading, type DirectionReading } from "./benchConfig";
import { LatencyHistogram } from "./latencyHistogram";
import { PayloadKind, payloadBuffer, writePayloadHeader } from "./payload";
import { disposeStub, type RelayFloor, type RelayInbox, type RelayReading } from "./relayFloor";

/** The bindings the bench's objects use. */
export interface TransportEnv {
  SIMS: DurableObjectNamespace<SimFloor>;
  RELAYS: DurableObjectNamespace<RelayFloor>;
}

/** The simulation's side of an RPC session: a relay calls `input` on it (as a stub). */
class SimInbox extends RpcTarget {
  constructor(private readonly arrivals: Arrivals) {
    super();
  }

  /** A relay's batched inputs over the session. */
  input(bytes: Uint8Array): void {
    this.arrivals.take(bytes, Date.now());
  }
}

/** A relay's inbox as the simulation holds it: a stub, kept past the call with `dup()`. */
type RelayInboxStub = Pick<RelayInbox, "update"> & { dup(): RelayInboxStub };

/** The simulation object of the bench (see the file comment). */
export class SimFloor extends DurableObject<TransportEnv> {
  private cfg: BenchConfig | null = null;
  private relays: DurableObjectStub<RelayFloor>[] = [];
  /** The relays' sockets by relay index (socket transports). */
  private sockets: (WebSocket | null)[] = [];
  /** The relays' inboxes by relay index (`rpc-session`). */
  private inboxes: (RelayInboxStub | null)[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private update = payloadBuffer(16);
  private seq = 0;
  private updatesSent = 0;
  private updateErrors = 0;
  private readonly inputs = new Arrivals(PayloadKind.input);
  private windowStart = Date.now();

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    try {
      switch (url.pathname) {
        case "/transport/start":
          await this.start(parseBenchConfig(url.searchParams));
          return Response.json({ ok: true, config: this.cfg });
        case "/transport/socket":
          return this.acceptRelay(request, Number(url.searchParams.get("relay")));
        case "/transport/input":
          this.inputs.take(new Uint8Array(await request.arrayBuffer()), Date.now());
          return new Response(null, { status: 204 });
        case "/transport/reset":
          await this.reset();
          return Response.json({ ok: true });
        case "/transport/read":
          return Response.json(await this.read());
        case "/transport/stop":
          await this.stop();
          return Response.json({ ok: true });
        case "/transport/clock":
          return Response.json(clockProbe());
        default:
          return new Response("not found", { status: 404 });
      }
    } catch (err) {
      return new Response(err instanceof Error ? err.message : String(err), { status: 400 });
    }
  }

  /** A relay's batched inputs by RPC. */
  input(bytes: Uint8Array): void {
    this.inputs.take(bytes, Date.now());
  }

  /** Opens a relay's RPC session (`rpc-session`): keeps its inbox, answers with this object's. */
  session(index: number, inbox: RelayInbox): SimInbox {
    // A stub received as an argument is disposed when the call returns unless duplicated.
    this.inboxes[index] = (inbox as unknown as RelayInboxStub).dup();
    return new SimInbox(this.inputs);
  }

  override webSocketMessage(_ws: WebSocket, message: string | ArrayBuffer): void {
    this.inputs.take(message, Date.now());
  }

  private async start(cfg: BenchConfig): Promise<void> {
    if (this.cfg !== null) throw new Error("this run has started already: use a new run id");
    this.cfg = cfg;
    this.update = payloadBuffer(cfg.updateBytes);
    this.sockets = new Array<WebSocket | null>(cfg.relays).fill(null);
    this.inboxes = new Array<RelayInboxStub | null>(cfg.relays).fill(null);
    const self = this.env.SIMS.get(this.ctx.id);
    this.relays = Array.from({ length: cfg.relays }, (_, i) => this.env.RELAYS.get(this.env.RELAYS.idFromName(`${this.ctx.id.toString()}:${i}`)));
    await Promise.all(this.relays.map((r, i) => r.begin(cfg, i, self)));
    if (cfg.transport === "ws" || cfg.transport === "ws-hib") {
      const missing = this.sockets.findIndex((s) => s === null);
      if (missing >= 0) throw new Error(`relay ${missing} opened no socket`);
    }
    if (cfg.transport === "rpc-session" && this.inboxes.some((s) => s === null)) throw new Error("a relay opened no RPC session");
    this.timer = setInterval(() => this.sendUpdates(), cfg.intervalMs);
    this.windowStart = Date.now();
  }

  private acceptRelay(request: Request, index: number): Response {
    const cfg = this.cfg;
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    if (!cfg || !Number.isInteger(index) || index < 0 || index >= cfg.relays) return new Response("no such relay in this run", { status: 400 });
    const pair = new WebSocketPair();
    const server = pair[1];
    if (cfg.transport === "ws-hib") {
      this.ctx.acceptWebSocket(server);
    } else {
      server.binaryType = "arraybuffer";
      server.accept();
      server.addEventListener("message", (e) => this.inputs.take(e.data as ArrayBuffer | string, Date.now()));
    }
    this.sockets[index] = server;
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  private sendUpdates(): void {
    const cfg = this.cfg;
    if (!cfg || cfg.transport === "none") return;
    const buf = writePayloadHeader(this.update, { kind: PayloadKind.update, source: 0, seq: ++this.seq, sentAtMs: Date.now() });
    const failed = (): void => {
      this.updateErrors++;
    };
    for (let i = 0; i < this.relays.length; i++) {
      this.updatesSent++;
      try {
        switch (cfg.transport) {
          case "rpc":
            void (async (relay) => {
              try {
                await relay.update(buf);
              } catch {
                failed();
              }
            })(this.relays[i]!);
            break;
          case "rpc-nowait":
            void this.relays[i]!.update(buf);
            break;
          case "rpc-session":
            void (async (inbox) => {
              try {
                await inbox.update(buf);
              } catch {
                failed();
              }
            })(this.inboxes[i]!);
            break;
          case "ws":
          case "ws-hib":
            this.sockets[i]!.send(buf);
            break;
          case "fetch":
            this.relays[i]!.fetch("http://relay/transport/update", { method: "POST", body: buf }).then((r) => (r.ok ? r.body?.cancel() : failed()), failed);
            break;
        }
      } catch {
        failed();
      }
    }
  }

  private async reset(): Promise<void> {
    this.updatesSent = 0;
    this.updateErrors = 0;
    this.inputs.reset();
    await Promise.all(this.relays.map((r) => r.reset()));
    this.windowStart = Date.now();
  }

  private async read(): Promise<BenchReading> {
    const cfg = this.cfg;
    if (!cfg) throw new Error("no run started");
    const windowMs = Date.now() - this.windowStart;
    const relays: RelayReading[] = await Promise.all(this.relays.map((r) => r.read()));
    const updateLatency = new LatencyHistogram();
    for (const r of relays) updateLatency.merge(r.latency);
    const sum = (f: (r: RelayReading) => number): number => relays.reduce((a, r) => a + f(r), 0);
    const direction = (sent: number, received: number, errors: number, outOfOrder: number, h: LatencyHistogram): DirectionReading => ({
      sent, received, errors, outOfOrder,
      latency: { p50: h.quantile(0.5), p99: h.quantile(0.99), max: Math.round(h.maxMs * 10) / 10, count: h.count },
    });
    return {
      config: cfg,
      windowMs,
      updates: direction(this.updatesSent, sum((r) => r.updatesReceived), this.updateErrors, sum((r) => r.updatesOutOfOrder), updateLatency),
      inputs: direction(sum((r) => r.inputsSent), this.inputs.received, sum((r) => r.inputErrors), this.inputs.outOfOrder, this.inputs.latency),
      malformed: this.inputs.malformed + sum((r) => r.malformed),
    };
  }

  private async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.relays.map((r) => r.end()));
    for (const inbox of this.inboxes) disposeStub(inbox);
    this.inboxes = [];
    for (const ws of this.sockets) {
      try {
        ws?.close(1000, "bench over");
      } catch {
        // already closed
      }
    }
  }
}

/**
 * How finely the clocks advance inside one request: reads `Date.now()` and `performance.now()`
 * in a busy loop of bounded length and reports the distinct values and the smallest step seen.
 * (On the edge both stand still while code runs; local workerd may differ.)
 */
function clockProbe(): { iterations: number; date: ClockSteps; performance: ClockSteps } {
  const date = new StepCounter(Date.now());
  const perf = new StepCounter(performance.now());
  let i = 0;
  // Bounded by iterations, not by time: a clock that stands still must not hang the request.
  for (; i < 2_000_000; i++) {
    date.see(Date.now());
    perf.see(performance.now());
    if (date.elapsed() >= 20) break;
  }
  return { iterations: i, date: date.result(), performance: perf.result() };
}

/** What {@link clockProbe} reports of one clock. */
interface ClockSteps {
  distinctValues: number;
  smallestStepMs: number | null;
  elapsedMs: number;
}

class StepCounter {
  private last: number;
  private distinct = 1;
  private smallest = Infinity;
  constructor(private readonly first: number) {
    this.last = first;
  }
  see(v: number): void {
    if (v === this.last) return;
    this.distinct++;
    if (v - this.last < this.smallest) this.smallest = v - this.last;
    this.last = v;
  }
  elapsed(): number {
    return this.last - this.first;
  }
  result(): ClockSteps {
    return { distinctValues: this.distinct, smallestStepMs: Number.isFinite(this.smallest) ? this.smallest : null, elapsedMs: this.elapsed() };
  }
}
