/**
 * What a whole agar room allocates per flush: the room core's flush path (sockets' gate, frame
 * header, ack, events, the encoder, the send, the slices) around the game, measured on a real
 * `Room` made by `createRoom` with sockets that only count bytes, at the standard density
 * (AOI 250, world 1000·√(N/100)) and 20 inputs/s per player.
 *
 *   bash scripts/toolchain.sh node --expose-gc --import tsx packages/games/bench/roomFlushAlloc.ts [players...]
 *   (FLUSH_SLICE_CLIENTS=0 in the environment: every flush in one task)
 *
 * The room flushes every tick. Each tick runs after a scavenge, and the flush's allocation is
 * heapUsed when the tick's task and its slices are done minus heapUsed when the room called
 * the encoder's `beginFlush` (minus what reading heapUsed allocates): the game's tick and the
 * input drain are before that point. What is left in the window besides the flush is the next
 * tick's timer record (~50 B). Memory, not time: the figures do not depend on how busy the
 * machine is.
 */
import { BenchClock } from "./benchClock";
import { CountingConnection } from "./benchConnection";
import { createRoom, type Game } from "@tikron/core";
import { BinaryWriter, PROTOCOL_VERSION, encodeHello, encodeInputs } from "@tikron/protocol";
import { gameDefinitions } from "../src";
import { agarInputs } from "../src/schemas";

const gc = (globalThis as { gc?: (o?: { type: "minor" | "major" }) => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

const WARMUP_TICKS = 60;
const MEASURED_TICKS = 200;
const TICK_MS = 50;

function sliceOverride(): { flushSliceClients?: number } {
  const v = process.env.FLUSH_SLICE_CLIENTS;
  return v === undefined ? {} : { flushSliceClients: Number(v) };
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function measure(players: number): { flushMean: number; flushMedian: number; frames: number } {
  const clock = new BenchClock();
  const world = Math.round(1000 * Math.sqrt(players / 100));
  const agar = gameDefinitions.agar!;
  let game: Game | undefined;
  const room = createRoom(
    { ...agar, create: (o, p, seed) => (game = agar.create(o, p, seed)) },
    {
      kind: "agar",
      roomId: `alloc-${players}`,
      clock,
      params: { world, aoi: 250 },
      // Clients that never fall behind: no receipts to send from here (they would allocate).
      // FLUSH_SLICE_CLIENTS: the room's slice size (its default when unset; 0: one task per flush).
      overrides: { ...sliceOverride(), cap: players, tickMs: TICK_MS, syncIntervalMs: TICK_MS, maxUnreceiptedMessages: 1e9, softBufferedBytes: 1e12, maxBufferedBytes: 1e12, msgRatePerSec: 1000, msgBurst: 1000, joinRatePerSec: 10_000, joinBurst: 10_000, identityJoinRatePerSec: 10_000, identityJoinBurst: 10_000 },
    },
  );
  // The flush starts where the encoder's beginFlush is called and ends with the tick's task and
  // its slices, i.e. when the clock returns: the game's own tick is before that point.
  if (game?.sync.mode !== "binary") throw new Error("agar is a binary game");
  const encoder = game.sync.encoder;
  const beginFlush = encoder.beginFlush.bind(encoder);
  let flushStart = 0;
  encoder.beginFlush = (flushIndex: number) => {
    flushStart = process.memoryUsage().heapUsed;
    beginFlush(flushIndex);
  };
  const w = new BinaryWriter(64);
  const ids: number[] = [];
  for (let i = 0; i < players; i++) {
    const id = room.open(new CountingConnection(), `p${i}`);
    room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: `p${i}` }).toBytes());
    ids.push(id);
  }
  // Every input of the run encoded up front: one per player per tick, steering on a slow turn.
  const ticks = WARMUP_TICKS + MEASURED_TICKS;
  const inputs: Uint8Array[][] = ids.map((_, p) =>
    Array.from({ length: ticks }, (_, t) => {
      const a = p * 2.399 + t * 0.05;
      const payload = agarInputs.encode({ dx: Math.cos(a), dy: Math.sin(a), boost: false }, new BinaryWriter(16));
      return encodeInputs(w.reset(), [{ seq: t + 1, payload }]).toBytes();
    }),
  );
  const perFlush: number[] = [];
  const reads: number[] = [];
  for (let i = 0; i < 50; i++) {
    gc!({ type: "minor" });
    const r0 = process.memoryUsage().heapUsed;
    reads.push(process.memoryUsage().heapUsed - r0);
  }
  const readCost = median(reads);
  for (let t = 0; t < ticks; t++) {
    for (let p = 0; p < players; p++) room.message(ids[p]!, inputs[p]![t]!);
    // A scavenge empties the young generation; a full GC here would leave its sweeping to run
    // (and heapUsed to fall) inside the measured window.
    gc!({ type: "minor" });
    flushStart = -1;
    clock.advance(TICK_MS);
    const end = process.memoryUsage().heapUsed;
    if (t >= WARMUP_TICKS && flushStart >= 0) perFlush.push(end - flushStart - readCost);
  }
  if (process.env.DEBUG_ALLOC) console.error(players, "read cost", readCost, "samples", perFlush.slice(0, 40).join(" "));
  const frames = room.snapshot().frames;
  room.dispose();
  return { flushMean: mean(perFlush), flushMedian: median(perFlush), frames };
}

const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
console.log("| agar players (standard density) | B per flush, mean | B per flush, median | B per client per flush (mean) | frames sent |");
console.log("|---|---|---|---|---|");
for (const players of counts.length ? counts : [100, 250, 300]) {
  const r = measure(players);
  console.log(`| ${players} | ${r.flushMean.toFixed(0)} | ${r.flushMedian.toFixed(0)} | ${(r.flushMean / players).toFixed(1)} | ${r.frames} |`);
}
