/**
 * Each room kind on the socket API it is meant to use, under a real `wrangler dev`: ticking rooms
 * on the standard API (cheap per message), turn-based rooms on the Hibernation API with the JSON
 * keepalive answered by the runtime, so an idle turn-based room sleeps and comes back with its
 * seats.
 */
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_KEEPALIVE, PROTOCOL_VERSION } from "@tikron/protocol";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { RawClient, sleep } from "../../../test/roomProtocol/rawClient";

let server: WranglerDevServer | undefined;
const sockets: { close(): void }[] = [];

beforeAll(async () => {
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
});

afterAll(async () => {
  for (const s of sockets) s.close();
  await server?.stop();
});

async function httpStats(kind: string, room: string): Promise<any> {
  const res = await fetch(`${server!.url}/rooms/${kind}/${room}/stats`);
  expect(res.status).toBe(200);
  return res.json();
}

/** A JSON-mode socket that records every text it receives. */
class TextSocket {
  readonly ws: WebSocket;
  readonly texts: string[] = [];
  readonly opened: Promise<void>;
  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
    });
    this.ws.on("error", () => {});
    this.ws.on("message", (d, isBinary) => {
      if (!isBinary) this.texts.push(d.toString());
    });
    sockets.push({ close: () => this.ws.close(1000) });
  }
  parsed(): any[] {
    return this.texts.map((t) => JSON.parse(t));
  }
  async hello(name: string): Promise<any> {
    await this.opened;
    this.ws.send(JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name }));
    for (let i = 0; i < 500 && !this.parsed().some((m) => m.t === "welcome"); i++) await sleep(20);
    return this.parsed().find((m) => m.t === "welcome");
  }
}

describe("socket API per room kind", () => {
  it("a ticking room (agar) takes its sockets on the standard API and plays as before", async () => {
    const room = `std-${Date.now()}`;
    const c = new RawClient(`${server!.wsUrl}/rooms/agar/${room}`);
    sockets.push(c);
    expect(await c.join("std")).not.toBeNull();
    const payload = new Uint8Array(9);
    for (let i = 0; i < 20; i++) {
      c.sendInput(payload);
      await sleep(10);
    }
    for (let i = 0; i < 100 && c.highestAck < c.lastSeq; i++) await sleep(20);
    expect(c.highestAck).toBe(c.lastSeq);
    const s = await httpStats("agar", room);
    expect(s.adapter.socketApi).toBe("standard");
    expect(s.inputs.received).toBe(20);
  });

  it("a turn-based room (ttt-json) hibernates when idle: keepalives answered by the runtime, seats back after", async () => {
    const room = `hib-${Date.now()}`;
    const a = new TextSocket(`${server!.wsUrl}/rooms/ttt-json/${room}`);
    const b = new TextSocket(`${server!.wsUrl}/rooms/ttt-json/${room}`);
    const wa = await a.hello("a");
    const wb = await b.hello("b");
    expect(wa?.playerId).toBeGreaterThan(0);
    expect(wb?.playerId).toBeGreaterThan(0);
    // X (the first to join) opens the round; the board must survive the object's sleep.
    a.ws.send(JSON.stringify({ t: "input", seq: 1, data: { cell: 0 } }));
    for (let i = 0; i < 100 && !a.parsed().some((m) => m.t === "state" && m.ack === 1); i++) await sleep(20);
    const before = await httpStats("ttt-json", room);
    expect(before.adapter.socketApi).toBe("hibernation");
    expect(before.seats).toBe(2);

    // Idle but alive: only keepalives for longer than workerd keeps an idle object in memory.
    const kaBefore = a.texts.filter((t) => t === JSON_KEEPALIVE).length;
    for (let i = 0; i < 12; i++) {
      a.ws.send(JSON_KEEPALIVE);
      b.ws.send(JSON_KEEPALIVE);
      await sleep(1_500);
    }
    expect(a.texts.filter((t) => t === JSON_KEEPALIVE).length - kaBefore).toBe(12);

    const after = await httpStats("ttt-json", room);
    // A new instance: the object slept and was rebuilt from the sockets' attachments.
    expect(after.adapter.instanceStartedAt).toBeGreaterThan(before.adapter.instanceStartedAt);
    expect(after.seats).toBe(2);
    expect(after.ccu).toBe(2);
    expect(after.restoredSeats).toBe(2);
    // The restored seats still play, on the same board: O answers X's move from before the sleep.
    b.ws.send(JSON.stringify({ t: "input", seq: 1, data: { cell: 4 } }));
    const acked = () => b.parsed().find((m) => m.t === "state" && m.ack === 1);
    for (let i = 0; i < 100 && !acked(); i++) await sleep(20);
    expect(acked()?.state?.board).toEqual(["X", null, null, null, "O", null, null, null, null]);
    expect(b.parsed().filter((m) => m.t === "error")).toEqual([]);
  }, 60_000);
});
