/**
 * Each room kind on the socket API it is meant to use, under a real `wrangler dev`: ticking rooms
 * on the standard API (cheap per message), turn-based rooms on the Hibernation API with the JSON
 * keepalive answered by the runtime, so an idle turn-based room sleeps and comes back with its
 * seats.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_KEEPALIVE } from "@tikron/protocol";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { RawClient, sleep } from "../../../test/roomProtocol/rawClient";
import { JsonClient, until } from "../../../test/roomProtocol/jsonClient";

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

describe("socket API per room kind", () => {
  it("a ticking room (agar) takes its sockets on the standard API and plays as before", async () => {
    const room = `std-${Date.now()}`;
    const c = new RawClient(`${server!.wsUrl}/rooms/agar/${room}`);
    sockets.push(c);
    expect(await c.join("std")).not.toBeNull();
    // agar's declared input: stick (0, 0) is level 127 on each axis, no boost.
    const payload = new Uint8Array([127, 127, 0]);
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

  it("an idle ticking room (agar) sleeps between its idle beats, and an input wakes it: acked, the cell moves", async () => {
    const room = `sleep-${Date.now()}`;
    const c = new RawClient(`${server!.wsUrl}/rooms/agar/${room}`);
    sockets.push(c);
    expect(await c.join("still")).not.toBeNull();
    // Nothing moves (no input yet): the room falls asleep, idle frames still reach the client.
    let s = await httpStats("agar", room);
    for (let i = 0; i < 50 && !(s.sleep?.asleep === true && s.sleep.asleepMs > 500); i++) {
      await sleep(100);
      s = await httpStats("agar", room);
    }
    expect(s.sleep.asleep).toBe(true);
    expect(s.sleep.asleepMs).toBeGreaterThan(500);
    expect(s.idleFrames).toBeGreaterThan(0);
    const wakes = s.sleep.wakes;
    const framesBefore = c.frames.length;
    // Full right, then full left (one of them moves the cell whatever wall it spawned by).
    c.sendInput(new Uint8Array([254, 127, 0]));
    await sleep(300);
    c.sendInput(new Uint8Array([0, 127, 0]));
    await sleep(300);
    for (let i = 0; i < 100 && c.highestAck < c.lastSeq; i++) await sleep(20);
    expect(c.highestAck).toBe(c.lastSeq);
    const moving = c.frames.slice(framesBefore).filter((f) => f.frame.hasState);
    expect(moving.length).toBeGreaterThanOrEqual(3);
    s = await httpStats("agar", room);
    expect(s.sleep.wakes).toBeGreaterThan(wakes);
    // Gone, so the tests after it share the runtime with no room of its ticking.
    c.close();
  });

  it("a turn-based room (ttt-json) hibernates when idle: keepalives answered by the runtime, seats back after", async () => {
    const room = `hib-${Date.now()}`;
    const a = new JsonClient(`${server!.wsUrl}/rooms/ttt-json/${room}`);
    const b = new JsonClient(`${server!.wsUrl}/rooms/ttt-json/${room}`);
    sockets.push(a, b);
    const wa = await a.join("a");
    const wb = await b.join("b");
    expect(wa?.playerId).toBeGreaterThan(0);
    expect(wb?.playerId).toBeGreaterThan(0);
    // X (the first to join) opens the round; the board must survive the object's sleep.
    a.input({ cell: 0 });
    expect(await until(() => a.messages.some((m) => m.t === "state" && m.ack === 1))).toBe(true);
    const before = await httpStats("ttt-json", room);
    expect(before.adapter.socketApi).toBe("hibernation");
    expect(before.seats).toBe(2);

    // Idle but alive: only keepalives for longer than workerd keeps an idle object in memory.
    const keepalives = (c: JsonClient): number => c.messages.filter((m) => m.t === "ka").length;
    const kaBefore = keepalives(a);
    for (let i = 0; i < 12; i++) {
      a.ws.send(JSON_KEEPALIVE);
      b.ws.send(JSON_KEEPALIVE);
      await sleep(1_500);
    }
    // Answers still on their way are waited for (bounded); none may be missing or doubled.
    await until(() => keepalives(a) - kaBefore >= 12);
    expect(keepalives(a) - kaBefore).toBe(12);

    const after = await httpStats("ttt-json", room);
    // A new instance: the object slept and was rebuilt from the sockets' attachments.
    expect(after.adapter.instanceStartedAt).toBeGreaterThan(before.adapter.instanceStartedAt);
    expect(after.seats).toBe(2);
    expect(after.ccu).toBe(2);
    expect(after.restoredSeats).toBe(2);
    // The restored seats still play, on the same board: O answers X's move from before the sleep.
    b.input({ cell: 4 });
    const acked = () => b.messages.find((m) => m.t === "state" && m.ack === 1);
    expect(await until(() => acked() !== undefined)).toBe(true);
    expect(acked()?.state?.board).toEqual(["X", null, null, null, "O", null, null, null, null]);
    expect(b.messages.filter((m) => m.t === "error")).toEqual([]);
  }, 60_000);
});
