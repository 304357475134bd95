/**
 * What one relay-transport run is: the transport, how many relays, the update and input sizes
 * and the interval, from the start request's query; and the reading the simulation answers.
 * The load tool's `transport-bench` speaks this contract over HTTP.
 */
import { PAYLOAD_HEADER_BYTES } from "./payload";

/**
 * The transports between the simulation and its relays:
 * - `none`: both sides tick and encode but send nothing (the timers' own cost, the control);
 * - `rpc`: Workers RPC on the object stub (`relay.update(bytes)`, `sim.input(bytes)`), each call awaited;
 * - `rpc-nowait`: the same calls with their promises dropped (fire and forget);
 * - `rpc-session`: one RPC session per relay, opened once (`sim.session(index, inbox)` returns the
 *   simulation's inbox, the relay's inbox rides along): every later call goes over that session,
 *   which the platform bills as one request, not one per call;
 * - `ws`: a WebSocket the relay opens to the simulation (`stub.fetch` with `Upgrade: websocket`), accepted with `accept()`;
 * - `ws-hib`: the same socket accepted with the Hibernation API (`ctx.acceptWebSocket`);
 * - `fetch`: one HTTP request per message (`stub.fetch`, POST body), awaited.
 */
export const TRANSPORTS = ["none", "rpc", "rpc-nowait", "rpc-session", "ws", "ws-hib", "fetch"] as const;
/** One of {@link TRANSPORTS}. */
export type Transport = (typeof TRANSPORTS)[number];

/** One run's shape. */
export interface BenchConfig {
  transport: Transport;
  /** Relay objects (K). */
  relays: number;
  /** Bytes of the world update the simulation sends each relay per interval (S). */
  updateBytes: number;
  /** Bytes of the batched input each relay sends the simulation per interval (B). */
  inputBytes: number;
  /** Milliseconds between sends, both ways. */
  intervalMs: number;
}

/** Largest message either way: 1 MiB (the platform allows 32 MiB per WebSocket message). */
export const MAX_BENCH_BYTES = 1 << 20;
/** Most relays one run drives. */
export const MAX_BENCH_RELAYS = 64;

/** A run's config from the start request's query; throws a message naming the bad field. */
export function parseBenchConfig(q: URLSearchParams): BenchConfig {
  const transport = q.get("transport") ?? "";
  if (!(TRANSPORTS as readonly string[]).includes(transport)) throw new Error(`transport must be one of ${TRANSPORTS.join(", ")}, not "${transport}"`);
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = q.get(name);
    const n = raw === null ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer in ${min}..${max}, not "${raw}"`);
    return n;
  };
  return {
    transport: transport as Transport,
    relays: int("relays", 2, 1, MAX_BENCH_RELAYS),
    updateBytes: int("updateBytes", 2048, PAYLOAD_HEADER_BYTES, MAX_BENCH_BYTES),
    inputBytes: int("inputBytes", 1200, PAYLOAD_HEADER_BYTES, MAX_BENCH_BYTES),
    intervalMs: int("intervalMs", 50, 5, 1000),
  };
}

/** One direction's counts over the window (since the last reset). */
export interface DirectionReading {
  sent: number;
  received: number;
  /** Sends that threw or whose promise rejected. */
  errors: number;
  /** Messages that arrived with a seq not above the last one from the same sender. */
  outOfOrder: number;
  /** One-way latency (ms, 0.1 ms buckets) by the shared clock; null when nothing arrived. */
  latency: { p50: number | null; p99: number | null; max: number; count: number };
}

/** What `GET /transport/read` answers. */
export interface BenchReading {
  config: BenchConfig;
  /** The simulation's clock between the reset and the read (ms). */
  windowMs: number;
  /** Simulation → relays (world updates). */
  updates: DirectionReading;
  /** Relays → simulation (batched inputs). */
  inputs: DirectionReading;
  /** Messages that were not a bench payload. */
  malformed: number;
}
