/**
 * A room's rates as its game changes them (`ctx.setRates`): the rates asked for, checked, and
 * the CADENCE every connected player hears (the periodic checkpoint's own clock:
 * room/checkpointCadence.ts).
 */
import { flushIntervalMs, ratesProblem, type FrameWriter, type RoomRates } from "@tikron/protocol";
import type { RoomOptions } from "../roomOptions";
import type { TickScheduler } from "../tickScheduler";
import { sendCadence } from "./replies";
import type { SeatRegistry } from "./seatRegistry";

/** The rates a game asks for, the ones it leaves out kept; a `RangeError` when they are not rates a room runs at. */
export function askedRates(options: RoomOptions, asked: Partial<RoomRates>): RoomRates {
  const next = { tickMs: asked.tickMs ?? options.tickMs, syncIntervalMs: asked.syncIntervalMs ?? options.syncIntervalMs };
  const problem = ratesProblem(next);
  if (problem) throw new RangeError(problem);
  return next;
}

/**
 * The game changes the room's rates (`ctx.setRates`): `options` take them, the loop moves onto
 * the new tick grid, and every connected client hears of it (CADENCE) when the tick or the
 * flush interval changed. Returns the rates the room runs at now (the sync interval in whole ticks).
 */
export function changeRates(options: RoomOptions, asked: Partial<RoomRates>, scheduler: TickScheduler, seats: SeatRegistry, writer: FrameWriter): RoomRates {
  const next = askedRates(options, asked);
  const tickChanged = next.tickMs !== options.tickMs;
  const before = flushIntervalMs(options.syncIntervalMs, options.tickMs);
  options.tickMs = next.tickMs;
  options.syncIntervalMs = next.syncIntervalMs;
  if (tickChanged) scheduler.setTickMs(next.tickMs);
  const rates = { tickMs: next.tickMs, syncIntervalMs: flushIntervalMs(next.syncIntervalMs, next.tickMs) };
  if (tickChanged || rates.syncIntervalMs !== before) announceCadence(seats, rates, writer);
  return rates;
}

/** Every connected player (bots aside) hears the room's new cadence. */
export function announceCadence(seats: SeatRegistry, rates: RoomRates, writer: FrameWriter): void {
  for (const seat of seats.list) {
    if (seat.link && seat.link.connection.bot !== true) sendCadence(seat.link, rates.tickMs, rates.syncIntervalMs, writer);
  }
}
