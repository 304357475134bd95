/**
 * What keeping an agar room costs its storage, the way the Cloudflare host keeps it (core
 * `KeptRoom`): a record per seat, and a checkpoint piece whenever the room says one is due (a base
 * with every entity, then only what changed): every `checkpointMs`, and 200 ms after the last once
 * agar marks a score changed (`ctx.keepSoon`). Players steer like the restart drill's (a new
 * heading every 1.5 s, an input every 100 ms) for 60 s of room time in a `TestRoom`; for each
 * world, cadence and room size:
 * the seat record's size, a whole checkpoint's, the pieces' (bases and changes apart), rows and
 * characters written per room-hour, and the time to take and encode a piece on this machine.
 * The rows marked "keepSoon ignored" run the same room with `keepSoonMs: 0` (the room option:
 * agar's `ctx.keepSoon` brings nothing forward, pieces every `checkpointMs` only): beside their
 * "honoured" twins (`keepSoonMs` 200, the default) they are what keeping scores within 200 ms
 * costs, in rows, characters and the room's own JavaScript time (its ticks and flushes on the
 * fake clock, the test clients' decoding left out) spent taking and encoding pieces.
 *
 *   bash scripts/toolchain.sh tsx packages/games/bench/keptCheckpoint.ts
 *
 * Sizes are JSON characters (what the host writes); deterministic for a given seed. Times are
 * this machine's (not for PERFORMANCE.md's headline figures on a shared machine).
 */
import { FakeClock, KeptRoom, type CheckpointSeat } from "@tikron/core";
import { TestRoom } from "@tikron/core/testing";
import { AgarGame } from "../src/agar/agarGame";
import { Random } from "../src/random";
import { agarTypes } from "../src/schemas";

const SECONDS = 60;
const CASES = [
  { label: "agar default world (4000, AOI 600)", world: 4000, aoi: 600, cadence: 1000, players: 100, keepSoon: true },
  { label: "agar standard density (1000, AOI 250)", world: 1000, aoi: 250, cadence: 1000, players: 100, keepSoon: true },
  { label: "agar default world (4000, AOI 600)", world: 4000, aoi: 600, cadence: 250, players: 100, keepSoon: true },
  { label: "agar standard density (1000, AOI 250)", world: 1000, aoi: 250, cadence: 250, players: 100, keepSoon: true },
  { label: "agar default world (4000, AOI 600)", world: 4000, aoi: 600, cadence: 1000, players: 8, keepSoon: true },
  { label: "agar default world (4000, AOI 600)", world: 4000, aoi: 600, cadence: 1000, players: 100, keepSoon: false },
  { label: "agar standard density (1000, AOI 250)", world: 1000, aoi: 250, cadence: 1000, players: 100, keepSoon: false },
] as const;


const avg = (a: readonly number[]): number => Math.round(a.reduce((s, x) => s + x, 0) / Math.max(1, a.length));
const median = (a: readonly number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] ?? 0;

for (const c of CASES) {
  const PLAYERS = c.players;
  const kept = new KeptRoom();
  const seatChars: number[] = [];
  let due = false;
  const hooks = {
    onCheckpointDue: (soon: boolean) => {
      if (!soon) due = true;
    },
    onSeatRecord: (id: number, rec: CheckpointSeat | null) => {
      const w = kept.seat(id, rec);
      if (w.value) seatChars.push(w.value.length);
    },
  };
  const clock = new FakeClock();
  const room = new TestRoom(new AgarGame({ world: c.world, aoiRadius: c.aoi, seed: 3 }), agarTypes, {
    hooks,
    clock,
    overrides: { cap: PLAYERS, joinRatePerSec: 1000, joinBurst: 1000, checkpointMs: c.cadence, ...(c.keepSoon ? {} : { keepSoonMs: 0 }) },
  });
  const rng = new Random(1);
  const players = Array.from({ length: PLAYERS }, (_, i) => room.join(`player${i}`));
  const headings = players.map(() => [1, 0] as [number, number]);
  const bases: number[] = [];
  const changes: number[] = [];
  const takeMs: number[] = [];
  let roomMs = 0;
  let chars = 0;
  for (let t = 50; t <= SECONDS * 1000; t += 50) {
    if (t % 1500 === 50) {
      for (const h of headings) {
        const a = rng.range(0, 2 * Math.PI);
        h[0] = Math.cos(a);
        h[1] = Math.sin(a);
      }
    }
    if (t % 100 === 0) players.forEach((p, i) => p.input({ dx: headings[i]![0], dy: headings[i]![1], boost: false }));
    const ran = performance.now();
    clock.advance(50);
    roomMs += performance.now() - ran;
    room.advance(0);
    if (due) {
      due = false;
      const at = performance.now();
      const cp = room.room.checkpoint(kept.world);
      const w = kept.piece(cp);
      takeMs.push(performance.now() - at);
      if (w) (cp.worldPiece === 0 ? bases : changes).push(w.value!.length);
      chars += w?.value?.length ?? 0;
    }
  }
  const whole = JSON.stringify(room.room.checkpoint()).length;
  const pieces = bases.length + changes.length;
  const perHour = Math.round((pieces * 3600) / SECONDS);
  const charsPerHour = avg([...bases, ...changes]) * perHour;
  const piecesMs = takeMs.reduce((a, b) => a + b, 0);
  console.log(
    `${c.label}, ${PLAYERS} players, checkpointMs ${c.cadence}, keepSoon ${c.keepSoon ? "honoured" : "ignored"}: ` +
      `${(pieces / SECONDS).toFixed(2)} pieces, ${Math.round(chars / SECONDS)} chars per room-second; ` +
      `room ${(roomMs / SECONDS).toFixed(1)} ms, pieces ${(piecesMs / SECONDS).toFixed(2)} ms per room-second (${((100 * piecesMs) / (piecesMs + roomMs)).toFixed(1)} % of the two); seat record ${avg(seatChars)} chars; whole checkpoint ${whole}; ` +
      `${pieces} pieces in ${SECONDS} s: ${bases.length} bases (avg ${avg(bases)}), ${changes.length} changes (avg ${avg(changes)}); ` +
      `per room-hour ${perHour} rows, ${(charsPerHour / 1e6).toFixed(1)} M chars; take + encode median ${median(takeMs).toFixed(3)} ms`,
  );
}
