/**
 * The steady window: the part of a run after the ramp, when every client should be seated. Server
 * CPU is read over exactly this window, so the messages it is divided by are counted over it too,
 * and each client's share of the state frames the room's cadence promises is judged over it.
 */
import type { RoomCounters, RoomMetrics } from "../metrics/roomMetrics";
import type { SimSocket } from "../players/simSocket";

/**
 * A client must receive at least this share of the frames the room's cadence promises over the
 * window: one per flush, carrying state or, when its view has nothing new (a dead agar cell, a
 * far-only priority tier between its turns), its acks alone. State cadence itself is judged by
 * the state-frame gap.
 */
export const MIN_STEADY_FRAME_SHARE = 0.99;

/**
 * Frames a client should receive in `durationSec` at one frame per `expectedGapMs`
 * (the welcome's sync interval rounded up to whole ticks).
 */
export function expectedFrames(durationSec: number, expectedGapMs: number): number {
  return expectedGapMs > 0 ? (durationSec * 1000) / expectedGapMs : 0;
}

/** True when `received` falls short of {@link MIN_STEADY_FRAME_SHARE} of `expected`. */
export function isShortOfFrames(received: number, expected: number): boolean {
  return expected > 0 && received < MIN_STEADY_FRAME_SHARE * expected;
}

/**
 * Messages the server handled in the steady window, as the generator counted them: INPUT frames
 * the clients sent plus FRAMEs they received after the ramp, up to the window's end.
 */
export function steadyMessages(c: Pick<RoomCounters, "inputFrames" | "framesRx" | "inputFramesBeforeSteady" | "framesRxBeforeSteady">): number {
  return c.inputFrames - (c.inputFramesBeforeSteady ?? 0) + (c.framesRx - (c.framesRxBeforeSteady ?? 0));
}

/** Marks the window's start in a thread's counters and judges each client at its end. */
export class SteadyWindow {
  private framesAtStart: number[] = [];
  private marked = false;

  /** At the window's start: snapshot the message counters and every client's cadence frames. */
  mark(rooms: readonly RoomMetrics[], clients: readonly SimSocket[]): void {
    this.marked = true;
    for (const r of rooms) {
      r.counters.inputFramesBeforeSteady = r.counters.inputFrames;
      r.counters.framesRxBeforeSteady = r.counters.framesRx;
    }
    this.framesAtStart = clients.map((c) => c.cadenceFramesRx);
  }

  /**
   * After the window: counts, per room, the clients that joined yet got too few frames
   * (a client that joined late or was dropped counts as short). Skipped for turn-based rooms,
   * which have no cadence, and when the window never started (a zero-length window).
   */
  finish(clients: readonly SimSocket[], durationSec: number): void {
    if (!this.marked) return;
    for (let i = 0; i < clients.length; i++) {
      const c = clients[i];
      const gap = c.room.info?.expectedGapMs ?? 0;
      if (!c.everJoined || c.room.info === null || gap <= 0) continue;
      if (isShortOfFrames(c.cadenceFramesRx - (this.framesAtStart[i] ?? 0), expectedFrames(durationSec, gap))) {
        c.room.counters.clientsShortOfFrames++;
      }
    }
  }
}
