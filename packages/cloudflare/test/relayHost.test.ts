/**
 * A relay object's side of a lost link to its simulation (relayHost.ts `RelayObjectSide`), in
 * Node with sockets faked: it keeps its clients and links again to a simulation back from its
 * checkpoint, or gives up after its bounded retries and closes them with `going_away`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BusyMeter } from "@tikron/core";
import { createSimulation, type RelaySimulation } from "@tikron/core/relay";
import { gameDefinitions } from "@tikron/games";
import { BinaryWriter, CloseCode, PROTOCOL_VERSION, decodeServerMessage, encodeHello, isDecodeError } from "@tikron/protocol";
import { RelayObjectSide } from "../src/relayHost";
import type { RoomRequestMeta } from "../src/roomRequest";

/** A WebSocket end as the host uses it: accept, listeners, send, close. */
class FakeSocket {
  binaryType = "";
  closed: { code: number; reason: string } | null = null;
  readonly sent: (Uint8Array | string)[] = [];
  onSend: ((data: Uint8Array) => void) | null = null;
  private readonly listeners = new Map<string, ((e: unknown) => void)[]>();
  accept(): void {}
  addEventListener(type: string, fn: (e: unknown) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  send(data: Uint8Array | string): void {
    if (this.closed) throw new Error("closed");
    this.sent.push(typeof data === "string" ? data : data.slice());
    if (typeof data !== "string") this.onSend?.(data);
  }
  close(code: number, reason: string): void {
    this.closed ??= { code, reason };
  }
  /** An event of the socket; a closed one delivers no more messages. */
  emit(type: string, e: unknown = {}): void {
    if (type === "message" && this.closed) return;
    for (const fn of this.listeners.get(type) ?? []) fn(e);
  }
}

const meta: RoomRequestMeta = { kind: "agar", roomId: "r1", options: { relays: 1 }, params: { world: 500, aoi: 600 }, relay: 0 };

/** A simulation behind a fake link socket, as the room's object would accept it. */
function simulationLink(simulation: RelaySimulation): FakeSocket {
  const ws = new FakeSocket();
  const receive = simulation.connectRelay({ send: (data) => ws.emit("message", { data: data.slice().buffer }) });
  ws.onSend = (data) => receive(data);
  return ws;
}

function makeSimulation(checkpoint?: unknown): RelaySimulation {
  const simulation = createSimulation(gameDefinitions.agar!, { kind: "agar", roomId: "r1", overrides: { relays: 1 }, params: { world: 500, aoi: 600 } });
  if (checkpoint !== undefined) simulation.room.restoreCheckpoint(checkpoint);
  return simulation;
}

/** The relay object, its namespace answering link requests with `answer`, and how many it got. */
function relayObject(answer: () => FakeSocket | { status: number; body: string }) {
  const asked = { n: 0 };
  const ns = {
    idFromName: (name: string) => name,
    get: () => ({
      fetch: async () => {
        asked.n++;
        const a = answer();
        return a instanceof FakeSocket ? { status: 101, webSocket: a, headers: new Headers(), text: async () => "" } : { status: a.status, webSocket: null, headers: new Headers(), text: async () => a.body };
      },
    }),
  } as unknown as DurableObjectNamespace;
  const side = new RelayObjectSide(() => ns, (kind) => gameDefinitions[kind], () => {}, new BusyMeter());
  return { side, asked };
}

/** A client socket opened on the relay and seated (the join's 101 cannot be made in Node: the socket is opened before it). */
async function seatedClient(side: RelayObjectSide): Promise<FakeSocket> {
  const pair = [new FakeSocket(), new FakeSocket()];
  vi.stubGlobal("WebSocketPair", function () {
    return pair;
  });
  await side.join(meta).catch(() => {});
  const server = pair[1]!;
  server.emit("message", { data: encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: "ann" }).toBytes().slice().buffer });
  return server;
}

const welcomes = (s: FakeSocket) =>
  s.sent.filter((d) => {
    const m = typeof d === "string" ? null : decodeServerMessage(d);
    return m !== null && !isDecodeError(m) && m.kind === "welcome";
  }).length;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("a relay object whose link to its simulation closes", () => {
  it("keeps its client and links again to the simulation back from its checkpoint, which welcomes it back", async () => {
    const first = makeSimulation();
    let link = simulationLink(first);
    const { side, asked } = relayObject(() => link);
    const client = await seatedClient(side);
    expect(welcomes(client)).toBe(1);
    expect(first.room.seatCount).toBe(1);

    // The simulation's object dies: its link goes first, then the simulation with it.
    const checkpoint = JSON.parse(JSON.stringify(first.room.checkpoint()));
    const old = link;
    old.close(1006, "gone");
    first.room.dispose();
    const restored = makeSimulation(checkpoint);
    link = simulationLink(restored);
    old.emit("close");
    await vi.advanceTimersByTimeAsync(100);
    expect(asked.n).toBe(2);
    expect(client.closed).toBeNull();
    expect(welcomes(client)).toBe(2);
    expect(restored.room.connectedCount).toBe(1);
    expect(await side.stats()).toMatchObject({ sockets: 1, seated: 1 });
    restored.room.dispose();
  });

  it("tries again with backoff while the simulation does not answer, then gives up after its bound and closes its clients with going_away", async () => {
    const sim = makeSimulation();
    let answer: FakeSocket | { status: number; body: string } = simulationLink(sim);
    const link = answer;
    const { side, asked } = relayObject(() => answer);
    const client = await seatedClient(side);
    answer = { status: 503, body: "down" };
    vi.spyOn(console, "warn").mockImplementation(() => {});
    link.close(1006, "gone");
    link.emit("close");
    link.emit("error");
    await vi.advanceTimersByTimeAsync(9_000);
    // Attempts at once, then after 50, 100, 200, 400, 800 ms and each second after: not one per tick.
    expect(asked.n).toBeGreaterThan(8);
    expect(asked.n).toBeLessThan(16);
    expect(client.closed).toBeNull();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(client.closed).toMatchObject({ code: CloseCode.going_away });
    const tries = asked.n;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(asked.n).toBe(tries);
    expect(await side.stats()).toBeNull();
    sim.room.dispose();
  });

  it("gives up at once when the simulation refuses for good (4xx)", async () => {
    const sim = makeSimulation();
    let answer: FakeSocket | { status: number; body: string } = simulationLink(sim);
    const link = answer;
    const { side, asked } = relayObject(() => answer);
    const client = await seatedClient(side);
    answer = { status: 409, body: "not relayed" };
    vi.spyOn(console, "warn").mockImplementation(() => {});
    link.close(1006, "gone");
    link.emit("close");
    await vi.advanceTimersByTimeAsync(10);
    expect(asked.n).toBe(2);
    expect(client.closed).toMatchObject({ code: CloseCode.going_away });
    sim.room.dispose();
  });
});
