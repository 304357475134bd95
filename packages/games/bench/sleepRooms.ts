/**
 * What still rooms cost the runtime they share, in counts that do not depend on the machine: R
 * agar rooms (the join job's: cap 8, the kind's defaults, world and AOI as shipped) of 8 idle
 * clients, driven through the real room core (`createRoom`) on fake clocks, each client seated
 * 10 ms after the last and confirming what it reads as the SDK does (receipts). Per simulated
 * second, over all rooms: the room timers fired (each an entry into its object: ticks, flush
 * slices, seat timers), ticks run, frames and bytes sent, checkpoints asked for, receipts
 * received. Twice: `awake`, the rooms' games with their stillness hidden (every room ticks at
 * 20 Hz, as before rooms slept), and `asleep`, as shipped (room/roomSleep.ts).
 *
 *   bash scripts/toolchain.sh node --import tsx packages/games/bench/sleepRooms.ts [--rooms 125] [--seconds 60] [--json]
 *
 * The counts are deterministic (the same build prints the same); the CPU line is not (a shared
 * machine's noise), and is printed only as a hint.
 */
import { createRoom, type Room } from "@tikron/core";
import { BinaryWriter, PROTOCOL_VERSION, encodeHello, encodeReceipt } from "@tikron/protocol";
import { gameDefinitions } from "../src";
import { BenchClock } from "./benchClock";
import { CountingConnection, benchArg } from "./benchConnection";

const PLAYERS = 8;

const ROOMS = benchArg("--rooms", 125);
const SECONDS = benchArg("--seconds", 60);
const WARMUP_MS = 2_000;
const STEP_MS = 10;

interface Hosted {
  room: Room;
  clock: BenchClock;
  conns: CountingConnection[];
  ids: number[];
  checkpoints: number;
  receipts: number;
}

const w = new BinaryWriter(64);

function makeRoom(i: number, sleepy: boolean): Hosted {
  const clock = new BenchClock();
  const hosted: Hosted = { room: null as unknown as Room, clock, conns: [], ids: [], checkpoints: 0, receipts: 0 };
  const def = gameDefinitions.agar!;
  hosted.room = createRoom(
    {
      ...def,
      // The twin of before: the same game with its stillness hidden, so its room never sleeps.
      create: (o, p, seed) => {
        const game = def.create(o, p, seed);
        if (!sleepy) Object.defineProperty(game, "still", { value: undefined });
        return game;
      },
    },
    {
      kind: "agar",
      roomId: `still-${i}`,
      clock,
      seed: 1000 + i,
      overrides: { cap: PLAYERS },
      hooks: { onCheckpointDue: (urgent) => void (urgent || hosted.checkpoints++) },
    },
  );
  return hosted;
}

/** One client of room `h` says hello. */
function seat(h: Hosted, p: number): void {
  const conn = new CountingConnection(true);
  const id = h.room.open(conn, `${h.room.roomId}p${p}`);
  h.room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: `p${p}` }).toBytes());
  h.conns.push(conn);
  h.ids.push(id);
}

function step(rooms: Hosted[]): void {
  for (const h of rooms) {
    h.clock.advance(STEP_MS);
    for (let p = 0; p < h.conns.length; p++) {
      const c = h.conns[p]!;
      if (!c.receiptDue) continue;
      c.receiptDue = false;
      h.receipts++;
      h.room.message(h.ids[p]!, encodeReceipt(w.reset(), c.receipts.messages, c.receipts.units).toBytes());
    }
  }
}

interface Totals {
  timers: number;
  ticks: number;
  frames: number;
  bytes: number;
  checkpoints: number;
  receipts: number;
}

function totals(rooms: Hosted[]): Totals {
  const t: Totals = { timers: 0, ticks: 0, frames: 0, bytes: 0, checkpoints: 0, receipts: 0 };
  for (const h of rooms) {
    t.timers += h.clock.fired;
    t.ticks += h.room.snapshot().ticks;
    t.checkpoints += h.checkpoints;
    t.receipts += h.receipts;
    for (const c of h.conns) (t.frames += c.messages), (t.bytes += c.bytes);
  }
  return t;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function run(sleepy: boolean) {
  const rooms = Array.from({ length: ROOMS }, (_, i) => makeRoom(i, sleepy));
  // Seated one after another, 10 ms apart in each room (the join job's arrivals fill a room in ~80 ms).
  for (let p = 0; p < PLAYERS; p++) {
    for (const h of rooms) seat(h, p);
    step(rooms);
  }
  for (let t = 0; t < WARMUP_MS; t += STEP_MS) step(rooms);
  const a = totals(rooms);
  const c0 = cpuMs();
  for (let t = 0; t < SECONDS * 1000; t += STEP_MS) step(rooms);
  const cpu = cpuMs() - c0;
  const b = totals(rooms);
  const seated = rooms.reduce((n, h) => n + h.room.snapshot().ccu, 0);
  if (seated !== ROOMS * PLAYERS) throw new Error(`only ${seated} of ${ROOMS * PLAYERS} clients still seated`);
  const asleep = rooms.filter((h) => h.room.snapshot().sleep?.asleep === true).length;
  for (const h of rooms) h.room.dispose();
  const perSec = (k: keyof Totals): number => (b[k] - a[k]) / SECONDS;
  return {
    mode: sleepy ? "asleep" : "awake",
    rooms: ROOMS,
    clients: ROOMS * PLAYERS,
    roomsAsleepAtEnd: asleep,
    timerFiresPerSec: perSec("timers"),
    ticksPerSec: perSec("ticks"),
    framesPerSec: perSec("frames"),
    bytesPerSec: perSec("bytes"),
    checkpointsPerSec: perSec("checkpoints"),
    receiptsPerSec: perSec("receipts"),
    cpuMsPerSimulatedSec: cpu / SECONDS,
  };
}

const results = [run(false), run(true)];
if (process.argv.includes("--json")) console.log(JSON.stringify(results));
else
  for (const r of results)
    console.log(
      `${r.mode.padEnd(6)} ${r.rooms} agar rooms × ${PLAYERS} idle clients, per simulated second: ` +
        `${r.timerFiresPerSec.toFixed(0)} timer fires, ${r.ticksPerSec.toFixed(0)} ticks, ${r.framesPerSec.toFixed(0)} frames (${(r.bytesPerSec / 1000).toFixed(1)} kB), ` +
        `${r.checkpointsPerSec.toFixed(0)} checkpoints, ${r.receiptsPerSec.toFixed(0)} receipts; ${r.roomsAsleepAtEnd} rooms asleep at the end; ` +
        `${r.cpuMsPerSimulatedSec.toFixed(1)} ms CPU per simulated s (noisy)`,
    );
