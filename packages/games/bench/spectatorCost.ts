/**
 * What spectators cost a single (not relayed) room's own object, in sends and bytes: one agar
 * room of P players (socketless bots that move, plus idle seated sockets that receive frames) and
 * S spectators at delay D, driven through the real room core (`createRoom`) on a fake clock with
 * sockets that only count. A single room holds its spectators itself (core/src/spectate
 * `RoomSpectators`), so every spectator send is the room object's; a relayed room's spectators
 * sit on its relay objects and add nothing to its simulation (core test "on a relay: … nothing
 * on the simulation"), each relay paying S/K of the sends counted here.
 *
 *   bash scripts/toolchain.sh node --import tsx packages/games/bench/spectatorCost.ts [--players 100] [--spectators 1000] [--seconds 10] [--json]
 *
 * Deterministic: counts, not times (the clock is fake, the bots seeded).
 */
import { createRoom } from "@tikron/core";
import { BinaryWriter, PROTOCOL_VERSION, encodeHello } from "@tikron/protocol";
import { gameDefinitions } from "../src";
import { BenchClock } from "./benchClock";
import { CountingConnection, benchArg } from "./benchConnection";

const TICK_MS = 50;

const PLAYERS = benchArg("--players", 100);
const SPECTATORS = benchArg("--spectators", 1000);
const SECONDS = benchArg("--seconds", 10);

const sum = (cs: CountingConnection[], f: (c: CountingConnection) => number) => cs.reduce((n, c) => n + f(c), 0);

/** One run at delay `delaySec`: per second, what the room object sent its players and its spectators. */
function run(delaySec: number) {
  const clock = new BenchClock();
  const room = createRoom(gameDefinitions.agar!, { kind: "agar", roomId: "watched", clock, seed: 7, overrides: { cap: PLAYERS * 2, bots: PLAYERS / 2, maxSpectators: SPECTATORS } });
  const w = new BinaryWriter(64);
  const players: CountingConnection[] = [];
  for (let p = 0; p < PLAYERS / 2; p++) {
    const conn = new CountingConnection();
    const id = room.open(conn, `p${p}`);
    room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: `p${p}` }).toBytes());
    players.push(conn);
  }
  const spectators: CountingConnection[] = [];
  for (let s = 0; s < SPECTATORS; s++) {
    const conn = new CountingConnection();
    const id = room.spectate(conn, { target: null, delaySec });
    if (id < 0) throw new Error(`spectator ${s} refused`);
    room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: "" }).toBytes());
    spectators.push(conn);
  }
  // Past the delay and the first keyframes, then the measured window.
  for (let t = 0; t < ((delaySec + 2) * 1000) / TICK_MS; t++) clock.advance(TICK_MS);
  const p0 = [sum(players, (c) => c.messages), sum(players, (c) => c.bytes)];
  const s0 = [sum(spectators, (c) => c.messages), sum(spectators, (c) => c.bytes)];
  const stats0 = room.snapshot().spectators!;
  for (let t = 0; t < (SECONDS * 1000) / TICK_MS; t++) clock.advance(TICK_MS);
  const stats = room.snapshot().spectators!;
  const per = (x: number) => Math.round(x / SECONDS);
  const out = {
    delaySec,
    players: { sendsPerSec: per(sum(players, (c) => c.messages) - p0[0]!), bytesPerSec: per(sum(players, (c) => c.bytes) - p0[1]!) },
    spectators: {
      sendsPerSec: per(sum(spectators, (c) => c.messages) - s0[0]!),
      bytesPerSec: per(sum(spectators, (c) => c.bytes) - s0[1]!),
      framesPerSec: per(stats.frames + stats.keyframes - stats0.frames - stats0.keyframes),
      encodesPerSec: per(stats.encodes - stats0.encodes),
    },
  };
  room.dispose();
  return out;
}

const results = [0, 1, 2].map(run);
if (process.argv.includes("--json")) console.log(JSON.stringify({ players: PLAYERS, spectators: SPECTATORS, results }));
else {
  console.log(`one agar room, ${PLAYERS} players (${PLAYERS / 2} bots + ${PLAYERS / 2} seated sockets), ${SPECTATORS} spectators, ${SECONDS} s; per second, sent by the room object:`);
  console.log("| delay | to players: sends | bytes | to spectators: sends | bytes | frames decoded | encodes |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of results) console.log(`| ${r.delaySec} s | ${r.players.sendsPerSec} | ${r.players.bytesPerSec} | ${r.spectators.sendsPerSec} | ${r.spectators.bytesPerSec} | ${r.spectators.framesPerSec} | ${r.spectators.encodesPerSec} |`);
}
