/**
 * A relayed room under a real `wrangler dev` (AGENTS.md "Relays"): an agar room made with the
 * DEV_MODE override `relays=2` runs its simulation in the room's object and takes its sockets in
 * two relay objects the gateway spreads the joins over. Clients on both relays see each other,
 * get their inputs acked, and one that reconnects keeps its seat. A client's tk:stats carries
 * the relays' counters, summed and apart, and each object's own time. Spectators sit on the
 * relays, not the simulation. A kind relayed by the
 * Worker var `ROOM_RELAYS` takes the matchmaker's players through relays too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchmaker } from "@tikron/client";
import { BinaryWriter, ClientView } from "@tikron/protocol";
import { agarInputs, agarSchema, agarTypes } from "@tikron/games/schemas";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { RawClient, sleep } from "../../../test/roomProtocol/rawClient";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";

let server: WranglerDevServer | undefined;
const sockets: { close(): void }[] = [];
/** The restart test's servers (its first keeps its state directory for the second) and its bundle. */
const restarted: WranglerDevServer[] = [];
let frozen: FrozenWorker | undefined;

beforeAll(async () => {
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
});

afterAll(async () => {
  for (const s of sockets) s.close();
  await Promise.allSettled([server?.stop(), ...restarted.map((s) => s.stop())]);
  frozen?.remove();
});

/** A small world (every player inside every AOI), relayed over two relay objects. */
const QUERY = "?relays=2&world=500&aoi=600";

function open(room: string, wsUrl = server!.wsUrl): RawClient {
  const c = new RawClient(`${wsUrl}/rooms/agar/${room}${QUERY}`);
  sockets.push(c);
  return c;
}

/** Names of the players a client's decoded frames show. */
function playersSeen(c: RawClient): string[] {
  const view = new ClientView(agarSchema);
  for (const f of c.frames) if (f.frame.body) expect(view.apply(f.frame.body)).toBeNull();
  return [...view.values()].filter((e) => e.type === "player").map((e) => String(e.record.name));
}

async function steer(players: readonly RawClient[], ms: number): Promise<void> {
  const w = new BinaryWriter();
  const started = performance.now();
  for (let k = 0; performance.now() - started < ms; k++) {
    for (const p of players) p.sendInput(agarInputs.encode({ dx: Math.cos(k / 10), dy: Math.sin(k / 10), boost: false }, w));
    await sleep(50);
  }
  await sleep(400); // the last tick's inputs, their flush, and the relays' frames
}

describe("a relayed room (relays=2)", () => {
  it("clients on both relays see each other, get acks, and a reconnect keeps its seat", async () => {
    const room = `relayed-${Date.now()}`;
    const names = ["a", "b", "c", "d"];
    const players = names.map(() => open(room));
    // One after another: the gateway sends joins without an identity round robin over the relays.
    const welcomes = [];
    for (const [i, p] of players.entries()) welcomes.push(await p.join(names[i]));
    for (const w of welcomes) expect(w).toMatchObject({ roomKind: "agar", schemaHash: agarSchema.hash });
    expect(new Set(welcomes.map((w) => w!.playerId)).size).toBe(4);

    const res = await fetch(`${server!.url}/rooms/agar/${room}/stats`);
    const stats = (await res.json()) as any;
    // Both relay objects attached to the simulation, which holds all four seats.
    expect(stats.adapter.relays).toBe(2);
    expect(stats.seats).toBe(4);

    await steer(players, 2_000);
    for (const p of players) {
      expect(p.closed).toBeNull();
      expect(p.errors).toEqual([]);
      expect(p.highestAck).toBe(p.lastSeq);
      expect(p.frames.length).toBeGreaterThan(20);
      expect(playersSeen(p).sort()).toEqual(names);
    }
    const sent = players.reduce((a, p) => a + p.lastSeq, 0);
    const simStats = await players[0]!.stats();
    expect(simStats.inputs.processed).toBe(sent);
    // A client's tk:stats is the room's as a whole: each relay's last report apart, their frames,
    // bytes and messages summed, the simulation's own beside them; every object's own time.
    const reported = [...simStats.relays].sort((x: any, y: any) => x.index - y.index);
    expect(reported.map((r: any) => [r.index, r.sockets, r.seated])).toEqual([
      [0, 2, 2],
      [1, 2, 2],
    ]);
    expect(simStats.frames).toBe(reported[0].frames + reported[1].frames);
    expect(simStats.bytesOut).toBe(reported[0].bytesOut + reported[1].bytesOut);
    expect(simStats.frames).toBeGreaterThan(40);
    expect(simStats.simulation.frames).toBe(0);
    expect(simStats.busy.ms).toBeGreaterThan(0);
    for (const r of reported) expect(r.busy.ms).toBeGreaterThan(0);
    // The frames are the relays' work, counted apart: two seated clients and their frames each.
    // Frames seen before the relays' counters are read: frames keep coming while the stats are asked.
    const framesSeen = players.reduce((a, p) => a + p.frames.length, 0);
    const playing = (await (await fetch(`${server!.url}/rooms/agar/${room}/stats`)).json()) as any;
    const relayObjects = [...playing.adapter.relayObjects].sort((x: any, y: any) => x.index - y.index);
    expect(playing.busy.share).toBeGreaterThan(0);
    for (const r of relayObjects) expect(r.busy.share).toBeGreaterThan(0);
    expect(relayObjects.map((r: any) => [r.index, r.sockets, r.seated, r.linkFailures])).toEqual([
      [0, 2, 2, 0],
      [1, 2, 2, 0],
    ]);
    for (const r of relayObjects) expect(r.frames).toBeGreaterThan(framesSeen / 4);
    expect(relayObjects[0].frames + relayObjects[1].frames).toBeGreaterThanOrEqual(framesSeen);

    // b drops and comes back (the next round-robin relay may be another): same seat, same player.
    const b = players[1]!;
    b.close();
    await sleep(300);
    const back = open(room);
    const rejoined = await back.join("b", welcomes[1]!.token);
    expect(rejoined).toMatchObject({ reconnected: true, playerId: welcomes[1]!.playerId });
    const others = [players[0]!, players[2]!, players[3]!];
    await steer([back, ...others], 1_000);
    expect(back.errors).toEqual([]);
    expect(back.highestAck).toBe(back.lastSeq);
    expect(back.lastSeq).toBeGreaterThan(welcomes[1]!.lastSeq);
    expect(playersSeen(back).sort()).toEqual(names);
    const after = (await (await fetch(`${server!.url}/rooms/agar/${room}/stats`)).json()) as any;
    expect(after).toMatchObject({ seats: 4, ccu: 4 });
  }, 60_000);
});

describe("spectators of a relayed room (relays=2)", () => {
  it("sit on the relay objects: welcomed without a seat, frames of the whole match, an input refused and counted, nothing on the simulation", async () => {
    const room = `watched-${Date.now()}`;
    const players = ["a", "b"].map(() => open(room));
    for (const [i, p] of players.entries()) await p.join(["a", "b"][i]);
    const watchers = [0, 1, 2, 3].map(() => {
      const c = new RawClient(`${server!.wsUrl}/rooms/agar/${room}${QUERY}&spectate=1`);
      sockets.push(c);
      return c;
    });
    for (const w of watchers) expect(await w.join("watcher")).toMatchObject({ playerId: 0, token: "", roomKind: "agar" });
    await steer(players, 2_000);
    for (const w of watchers) {
      expect(w.closed).toBeNull();
      expect(w.frames.length).toBeGreaterThan(20);
      expect(playersSeen(w).sort()).toEqual(["a", "b"]);
    }
    watchers[0]!.sendInput(agarInputs.encode({ dx: 1, dy: 0, boost: false }, new BinaryWriter()));
    // The relay counts it at once; its next report (one a second) carries it to the simulation.
    let stats = await players[0]!.stats();
    for (let i = 0; i < 10 && stats.errors.spectating !== 1; i++) {
      await sleep(300); // the room answers one stats request per 250 ms
      stats = await players[0]!.stats();
    }
    expect(watchers[0]!.errors.map((e) => e.code)).toEqual([25]);
    expect(stats.seats).toBe(2);
    expect(stats.errors.spectating).toBe(1);
    // The simulation holds no spectator: they are the relays' (round robin over both).
    expect(stats.spectators).toBeUndefined();
  });

  it("a delayed spectator (delay=1) decodes ~20 frames/s from ~10 messages/s: its frames come two to a bundle", async () => {
    const room = `watched-late-${Date.now()}`;
    const players = ["a", "b"].map(() => open(room));
    for (const [i, p] of players.entries()) await p.join(["a", "b"][i]);
    const late = new RawClient(`${server!.wsUrl}/rooms/agar/${room}${QUERY}&spectate=1&delay=1`);
    sockets.push(late);
    expect(await late.join("late")).toMatchObject({ playerId: 0 });
    await steer(players, 4_000);
    expect(late.closed).toBeNull();
    // The window: from half a second after its first frame (1 s behind) to its last one.
    const arrivals = late.frames.map((f) => f.at);
    const from = arrivals[0]! + 500;
    const to = arrivals.at(-1)!;
    const inWindow = arrivals.filter((t) => t >= from && t <= to);
    const messages = new Set(inWindow).size;
    const seconds = (to - from) / 1000;
    expect(seconds).toBeGreaterThan(1.5);
    const fps = inWindow.length / seconds;
    const mps = messages / seconds;
    expect(fps).toBeGreaterThan(15);
    expect(fps).toBeLessThan(25);
    expect(mps).toBeGreaterThan(7);
    expect(mps).toBeLessThan(13);
    // Two frames a message: the bundles of a 1 s delay at 20 flushes a second.
    expect(inWindow.length / messages).toBeGreaterThan(1.8);
    expect(late.bundles).toBeGreaterThan(10);
    expect(playersSeen(late).sort()).toEqual(["a", "b"]);
  }, 30_000);
});

describe("a relayed room across a restart of the runtime", () => {
  it("every object starts again: clients reconnect through relays made again into their seats, restored from the checkpoint", async () => {
    frozen = await freezeWorker("wrangler.staging.jsonc");
    const first = await startWranglerDev({ config: frozen.configPath, keepState: true });
    restarted.push(first);
    const room = `relayed-restart-${Date.now()}`;
    const before = [open(room, first.wsUrl), open(room, first.wsUrl)];
    const welcomes = [await before[0]!.join("a"), await before[1]!.join("b")];
    await steer(before, 500);
    for (const p of before) expect(p.highestAck).toBe(p.lastSeq);

    await first.stop();
    await Promise.all(before.map((p) => p.done));
    const second = await startWranglerDev({ config: frozen.configPath, port: first.port, persistDir: first.persistDir });
    restarted.push(second);
    const after = before.map(() => open(room, second.wsUrl));
    const back = [await after[0]!.join("a", welcomes[0]!.token), await after[1]!.join("b", welcomes[1]!.token)];
    for (const [i, w] of back.entries()) expect(w).toMatchObject({ reconnected: true, playerId: welcomes[i]!.playerId });
    await steer(after, 1_000);
    for (const p of after) {
      expect(p.errors).toEqual([]);
      expect(p.highestAck).toBe(p.lastSeq);
      expect(playersSeen(p).sort()).toEqual(["a", "b"]);
    }
    const stats = (await (await fetch(`${second.url}/rooms/agar/${room}/stats`)).json()) as any;
    expect(stats).toMatchObject({ seats: 2, ccu: 2, restoredSeats: 2 });
    expect(stats.adapter.relays).toBe(2);
  }, 120_000);
});

describe("a kind relayed by configuration (ROOM_RELAYS)", () => {
  it("the matchmaker's players join its rooms through relays: seated and listed once, their frames and acks flowing", async () => {
    const relayedKind = await startWranglerDev({ config: "wrangler.staging.jsonc", vars: { ROOM_RELAYS: "agar=2" } });
    restarted.push(relayedKind);
    // Creation overrides a relay cannot see in its join URL (only `?reservation=`): it learns the
    // room's from the simulation, or its mirror would be laid out for another world (agar's AOI
    // is its tier's radius: 600 by default). Everyone within everyone's AOI.
    const m = matchmaker(`${relayedKind.url}?cap=6&world=400&aoi=800`);
    const names = ["a", "b", "c"];
    const players = [];
    for (const name of names) players.push(await m.joinOrCreate(agarTypes, { name }));
    for (const p of players) sockets.push(p);
    const room = players[0]!.room;
    for (const p of players) expect(p).toMatchObject({ status: "joined", room });
    for (let k = 0; k < 30; k++) {
      for (const p of players) p.sendInput({ dx: 1, dy: 0, boost: false });
      await sleep(50);
    }
    await sleep(1_200); // the last acks, and a report from each relay
    for (const p of players) {
      expect(p.stats.decodeErrors).toBe(0);
      expect(p.stats.frames).toBeGreaterThan(20);
      expect(p.stats.lastAck).toBe(p.stats.inputsSent);
      const seen = [...(p.state as ClientView).values()].filter((e) => e.type === "player").map((e) => String(e.record.name));
      expect(seen.sort()).toEqual(names);
    }
    // The room is the simulation, its sockets on its relays (by the players' identities' hash:
    // three may share one); every player counted once.
    const stats = (await (await fetch(`${relayedKind.url}/rooms/agar/${room}/stats`)).json()) as any;
    expect(stats).toMatchObject({ seats: 3, ccu: 3, cap: 6 });
    expect(stats.relays.length).toBe(stats.adapter.relays);
    for (const r of stats.relays) expect(r.index).toBeLessThan(2);
    expect(stats.relays.reduce((n: number, r: any) => n + r.seated, 0)).toBe(3);
    const listed = (await (await fetch(`${relayedKind.url}/match/agar/stats`)).json()) as { directory: { roomId: string; clients: number }[] }[];
    const entries = listed.flatMap((shard) => shard.directory).filter((r) => r.roomId === room);
    expect(entries).toEqual([expect.objectContaining({ roomId: room, clients: 3 })]);
    for (const p of players) p.close();
  }, 90_000);
});
