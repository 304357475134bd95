/**
 * The standing cost of many small idle rooms: R agar rooms (as the join job makes them: cap 8,
 * the kind's defaults, world and AOI as shipped) of 8 connected clients that send nothing, driven
 * through the real room core (`createRoom`) with sockets that only count bytes, each room on its
 * own fake clock. Prints the thread time per room per tick (the tick, its flush and the room's
 * timers; with `--checkpoint`, also the periodic checkpoint the host takes when the room asks),
 * and per tick the frames and bytes a room sends.
 *
 *   bash scripts/toolchain.sh node --import tsx packages/games/bench/idleRooms.ts [--rooms 40] [--ticks 400] [--checkpoint] [--json]
 *
 * Time is `process.cpuUsage()` (user + system) over the measured ticks, so waiting for a core
 * on a shared machine does not count (it still includes this file's fake clocks and receipts,
 * the same for any build). To compare two builds, alternate them in one run, e.g. with `A` a
 * checkout of the base (`git archive main | tar -x -C A`, each package's `node_modules` copied
 * over, the root one linked):
 *
 *   for i in 1 2 3 4 5; do for d in A .; do (cd $d && bash scripts/toolchain.sh node --import tsx packages/games/bench/idleRooms.ts --checkpoint --json); done; done
 *
 * The frame and byte counts are deterministic: two builds that send the same must print the same.
 */
import { createRoom, type Room } from "@tikron/core";
import { BenchClock } from "./benchClock";
import { CountingConnection, benchArg } from "./benchConnection";
import { BinaryWriter, PROTOCOL_VERSION, encodeHello, encodeReceipt } from "@tikron/protocol";
import { gameDefinitions } from "../src";

const TICK_MS = 50;
const PLAYERS = 8;

const ROOMS = benchArg("--rooms", 40);
const WARMUP_TICKS = benchArg("--warmup", 100);
const TICKS = benchArg("--ticks", 400);
const CHECKPOINT = process.argv.includes("--checkpoint");


interface Hosted {
  room: Room;
  clock: BenchClock;
  conns: CountingConnection[];
  ids: number[];
}

const receiptWriter = new BinaryWriter(32);

function makeRoom(i: number): Hosted {
  const clock = new BenchClock();
  let hosted: Hosted | null = null;
  const room = createRoom(gameDefinitions.agar!, {
    kind: "agar",
    roomId: `idle-${i}`,
    clock,
    seed: 1000 + i,
    overrides: { cap: PLAYERS },
    // The host's periodic checkpoint: taken when the room asks (a Durable Object writes it).
    hooks: CHECKPOINT ? { onCheckpointDue: () => void hosted?.room.checkpoint("next") } : undefined,
  });
  const w = new BinaryWriter(64);
  const conns: CountingConnection[] = [];
  const ids: number[] = [];
  for (let p = 0; p < PLAYERS; p++) {
    const conn = new CountingConnection(true);
    const id = room.open(conn, `r${i}p${p}`);
    room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: `p${p}` }).toBytes());
    conns.push(conn);
    ids.push(id);
  }
  hosted = { room, clock, conns, ids };
  return hosted;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const rooms = Array.from({ length: ROOMS }, (_, i) => makeRoom(i));
const step = (): void => {
  for (const h of rooms) {
    h.clock.advance(TICK_MS);
    for (let p = 0; p < PLAYERS; p++) {
      const c = h.conns[p]!;
      if (!c.receiptDue) continue;
      c.receiptDue = false;
      h.room.message(h.ids[p]!, encodeReceipt(receiptWriter.reset(), c.receipts.messages, c.receipts.units).toBytes());
    }
  }
};
for (let t = 0; t < WARMUP_TICKS; t++) step();
let messages0 = 0;
let bytes0 = 0;
for (const h of rooms) for (const c of h.conns) (messages0 += c.messages), (bytes0 += c.bytes);
const c0 = cpuMs();
const w0 = performance.now();
for (let t = 0; t < TICKS; t++) step();
const cpu = cpuMs() - c0;
const wall = performance.now() - w0;
let messages = -messages0;
let bytes = -bytes0;
for (const h of rooms) for (const c of h.conns) (messages += c.messages), (bytes += c.bytes);
const perRoomTick = (x: number): number => x / (ROOMS * TICKS);
const result = {
  rooms: ROOMS,
  ticks: TICKS,
  checkpoint: CHECKPOINT,
  cpuUsPerRoomTick: perRoomTick(cpu * 1000),
  wallUsPerRoomTick: perRoomTick(wall * 1000),
  framesPerRoomTick: perRoomTick(messages),
  bytesPerRoomTick: perRoomTick(bytes),
};
const seated = rooms.reduce((n, h) => n + h.room.snapshot().ccu, 0);
if (seated !== ROOMS * PLAYERS) throw new Error(`only ${seated} of ${ROOMS * PLAYERS} clients still seated`);
for (const h of rooms) h.room.dispose();
if (process.argv.includes("--json")) console.log(JSON.stringify(result));
else
  console.log(
    `${ROOMS} agar rooms × ${PLAYERS} idle clients, ${TICKS} ticks${CHECKPOINT ? ", checkpoints" : ""}: ` +
      `${result.cpuUsPerRoomTick.toFixed(1)} µs CPU per room per tick (wall ${result.wallUsPerRoomTick.toFixed(1)}), ` +
      `${result.framesPerRoomTick.toFixed(2)} frames and ${result.bytesPerRoomTick.toFixed(1)} B per room per tick`,
  );
