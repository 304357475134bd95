/**
 * The size of a recorded agar match per player-minute (PERFORMANCE.md "Recorded matches"): N
 * players in one room on a fake clock, each steering like the demo page (one input per 50 ms
 * tick, the stick turning a little each time), for S seconds of room time; the log's bytes, per
 * player-minute, and which records they went to. A byte count: deterministic, so it may be run
 * on a busy machine. It also re-runs the log to check it replays exactly.
 *
 * Usage: `bash scripts/toolchain.sh tsx packages/games/bench/replaySize.ts [players=100] [seconds=60]`
 */
import { MemoryRecording, TestRoom } from "@tikron/core/testing";
import { MatchLog, recordKindName, replay } from "@tikron/core/replay";
import { gameDefinitions, Random } from "../src";
import { agarTypes } from "../src/schemas";

const players = Number(process.argv[2] ?? 100);
const seconds = Number(process.argv[3] ?? 60);

const recording = new MemoryRecording();
const room = new TestRoom(gameDefinitions.agar!, agarTypes, { recording, seed: 1, overrides: { cap: players, joinBurst: players, joinRatePerSec: players } });
const rnd = new Random(2);
const clients = Array.from({ length: players }, (_, i) => room.join(`p${i}`));
const heading = clients.map(() => rnd.range(0, Math.PI * 2));
for (let step = 0; step < (seconds * 1000) / 50; step++) {
  for (const [i, c] of clients.entries()) {
    heading[i]! += rnd.range(-0.3, 0.3);
    c.input({ dx: Math.cos(heading[i]!), dy: Math.sin(heading[i]!), boost: rnd.next() < 0.05 });
  }
  room.advance(50);
  // The clients read what they got (their receipts keep the room sending to them).
  for (const c of clients) c.receive();
}
room.room.dispose();

const bytes = recording.log();
const log = new MatchLog(bytes);
const byKind = new Map<string, { records: number; bytes: number }>();
for (let i = 0; i < log.count; i++) {
  const name = recordKindName(log.kind(i));
  const k = byKind.get(name) ?? { records: 0, bytes: 0 };
  k.records++;
  k.bytes += log.recordBytes(i).length;
  byKind.set(name, k);
}
const minutes = seconds / 60;
console.log(`agar, ${players} players, ${seconds} s, one input per player per 50 ms tick`);
console.log(`log: ${bytes.length} B = ${Math.round(bytes.length / (players * minutes))} B per player-minute (${(bytes.length / 1024 / minutes).toFixed(1)} KiB per room-minute)`);
for (const [name, k] of [...byKind].sort((a, b) => b[1].bytes - a[1].bytes)) {
  console.log(`  ${name.padEnd(10)} ${String(k.records).padStart(7)} records ${String(k.bytes).padStart(9)} B (${((100 * k.bytes) / bytes.length).toFixed(1)} %)`);
}
const t0 = performance.now();
const report = await replay(gameDefinitions.agar!, bytes);
console.log(`${report.message} in ${Math.round(performance.now() - t0)} ms`);
