/**
 * A room's rates as its game changes them (`ctx.setRates`): the rates asked for, checked, and
 * the CADENCE every connected player hears (the periodic checkpoint's own clock:
 * room/checkpointCadence.ts).
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

/** Every connected player (bots aside) hears the room's new cadence. */
export function announceCadence(seats: SeatRegistry, rates: RoomRates, writer: FrameWriter): void {
  for (const seat of seats.list) {
    if (seat.link && seat.link.connection.bot !== true) sendCadence(seat.link, rates.tickMs, rates.syncIntervalMs, writer);
  }
}
