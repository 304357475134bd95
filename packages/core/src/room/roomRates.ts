/**
 * A room's rates as its game changes them (`ctx.setRates`): the rates asked for, checked; the
 * periodic checkpoint's period in ticks; and the CADENCE every connected player hears.
 */
import { ratesProblem, type FrameWriter, type RoomRates } from "@tikron/protocol";
import type { RoomOptions } from "../roomOptions";
import { sendCadence } from "./replies";
import type { SeatRegistry } from "./seatRegistry";

/** The rates a game asks for, the ones it leaves out kept; a `RangeError` when they are not rates a room runs at. */
export function askedRates(options: RoomOptions, asked: Partial<RoomRates>): RoomRates {
  const next = { tickMs: asked.tickMs ?? options.tickMs, syncIntervalMs: asked.syncIntervalMs ?? options.syncIntervalMs };
  const problem = ratesProblem(next);
  if (problem) throw new RangeError(problem);
  return next;
}

/** `checkpointMs` in ticks, rounded up to whole flushes (a checkpoint follows a flush); 0: none. */
export function checkpointTicks(options: RoomOptions, syncEveryTicks: number): number {
  const flushMs = syncEveryTicks * options.tickMs;
  return options.checkpointMs > 0 ? Math.max(1, Math.ceil(options.checkpointMs / flushMs)) * syncEveryTicks : 0;
}

/** Every connected player (bots aside) hears the room's new cadence. */
export function announceCadence(seats: SeatRegistry, rates: RoomRates, writer: FrameWriter): void {
  for (const seat of seats.list) {
    if (seat.link && seat.link.connection.bot !== true) sendCadence(seat.link, rates.tickMs, rates.syncIntervalMs, writer);
  }
}
