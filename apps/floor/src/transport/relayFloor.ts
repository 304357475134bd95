/**
 * A relay of the relay-transport bench: the object that, in a relayed room, holds the clients'
 * sockets. Here it holds none: every interval it sends the simulation one batched-input message
 * of the configured size by the run's transport, and it counts the world updates the simulation
 * sends it (arrivals, one-way latency, order). The simulation drives it over RPC (`begin`,
 * `reset`, `read`, `end`); those control calls are outside the measured traffic's shape.
 */
import { DurableObject, RpcTarget } from "cloudflare:workers";
import { Arrivals } from "./arrivals";
import type { BenchConfig } from "./benchConfig";
import { PayloadKind, payloadBuffer, writePayloadHeader } from "./payload";

/** Where batched inputs go over an RPC session (the simulation's inbox). */
export interface InputPort {
  input(bytes: Uint8Array): unknown;
}

/** The simulation as a relay sees it: its RPC methods and its HTTP entry. */
export interface SimPort extends InputPort {
  /** Opens the `rpc-session` transport: takes this relay's inbox, answers with the simulation's. */
  session(index: number, inbox: RelayInbox): unknown;
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

/** Disposes an RPC stub by its `Symbol.dispose` (which the project's TypeScript lib does not declare). */
export function disposeStub(stub: object | null | undefined): void {
  const key = (Symbol as unknown as { dispose?: symbol }).dispose;
  const f = stub && key ? (stub as Record<symbol, unknown>)[key] : undefined;
  if (typeof f === "function") f.call(stub);
}

/** A relay's side of an RPC session: the simulation calls `update` on it (as a stub). */
export class RelayInbox extends RpcTarget {
  constructor(private readonly arrivals: Arrivals) {
    super();
  }

  /** A world update over the session. */
  update(bytes: Uint8Array): void {
    this.arrivals.take(bytes, Date.now());
  }
}

/** A relay's counts over the window, for the simulation to merge. */
export interface RelayReading {
  inputsSent: number;
  inputErrors: number;
  updatesReceived: number;
  updatesOutOfOrder: number;
  malformed: number;
  latency: { counts: Uint32Array; count: number; maxMs: number };
}

/** The relay object of the bench (see the file comment). */
export class RelayFloor extends DurableObject {
  private cfg: BenchConfig | null = null;
  private index = 0;
  private sim: SimPort | null = null;
  /** The simulation's inbox over the session (`rpc-session`). */
  private session: (InputPort) | null = null;
  private socket: WebSocket | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private input = payloadBuffer(16);
  private seq = 0;
  private inputsSent = 0;
  private inputErrors = 0;
  private readonly updates = new Arrivals(PayloadKind.update);

  /** Starts sending inputs to `sim`; for the socket transports, opens the socket first. */
  async begin(cfg: BenchConfig, index: number, sim: SimPort): Promise<void> {
    this.end();
    this.cfg = cfg;
    this.index = index;
    this.sim = sim;
    this.input = payloadBuffer(cfg.inputBytes);
    if (cfg.transport === "ws" || cfg.transport === "ws-hib") {
      const res = await sim.fetch(`http://sim/transport/socket?relay=${index}`, { headers: { Upgrade: "websocket" } });
      const ws = res.webSocket;
      if (!ws) throw new Error(`the simulation refused the relay's socket: ${res.status}`);
      ws.binaryType = "arraybuffer";
      ws.accept();
      ws.addEventListener("message", (e) => this.updates.take(e.data as ArrayBuffer | string, Date.now()));
      this.socket = ws;
    }
    if (cfg.transport === "rpc-session") this.session = (await sim.session(index, new RelayInbox(this.updates))) as InputPort;
    this.timer = setInterval(() => this.sendInput(), cfg.intervalMs);
  }

  /** A world update by RPC. */
  update(bytes: Uint8Array): void {
    this.updates.take(bytes, Date.now());
  }

  /** A world update by HTTP (the `fetch` transport). */
  override async fetch(request: Request): Promise<Response> {
    this.updates.take(new Uint8Array(await request.arrayBuffer()), Date.now());
    return new Response(null, { status: 204 });
  }

  /** Starts a new measured window. */
  reset(): void {
    this.inputsSent = 0;
    this.inputErrors = 0;
    this.updates.reset();
  }

  /** The window's counts. */
  read(): RelayReading {
    const u = this.updates;
    return {
      inputsSent: this.inputsSent,
      inputErrors: this.inputErrors,
      updatesReceived: u.received,
      updatesOutOfOrder: u.outOfOrder,
      malformed: u.malformed,
      latency: { counts: u.latency.counts, count: u.latency.count, maxMs: u.latency.maxMs },
    };
  }

  /** Stops sending and closes the socket. */
  end(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    try {
      this.socket?.close(1000, "bench over");
    } catch {
      // already closed
    }
    this.socket = null;
    disposeStub(this.session);
    this.session = null;
  }

  private sendInput(): void {
    const cfg = this.cfg;
    const sim = this.sim;
    if (!cfg || !sim || cfg.transport === "none") return;
    const buf = writePayloadHeader(this.input, { kind: PayloadKind.input, source: this.index, seq: ++this.seq, sentAtMs: Date.now() });
    this.inputsSent++;
    const failed = (): void => {
      this.inputErrors++;
    };
    try {
      switch (cfg.transport) {
        case "rpc":
          void (async () => {
            try {
              await sim.input(buf);
            } catch {
              failed();
            }
          })();
          break;
        case "rpc-nowait":
          sim.input(buf);
          break;
        case "rpc-session":
          void (async (session) => {
            try {
              await session?.input(buf);
            } catch {
              failed();
            }
          })(this.session);
          break;
        case "ws":
        case "ws-hib":
          this.socket?.send(buf);
          break;
        case "fetch":
          sim.fetch("http://sim/transport/input", { method: "POST", body: buf }).then((r) => (r.ok ? r.body?.cancel() : failed()), failed);
          break;
      }
    } catch {
      failed();
    }
  }
}
