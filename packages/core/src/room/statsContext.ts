/**
 * What a room knows beyond its counters when it answers the `tk:stats` probe, gathered from its
 * parts (room/roomWiring.ts) for `buildStatsSnapshot` (roomStats.ts).
 */
import type { BusyMeter } from "../busyMeter";
import type { RoomStatsContext, SleepStats } from "../roomStats";
import type { RoomBase, RoomWiring } from "./roomWiring";

/** The probe's context now: seats, loop, bots, reservations, admissions, listing, deferred work, store, busy time. */
export function statsContext(base: RoomBase, parts: RoomWiring, syncIntervalMs: number, busy: BusyMeter | null, sleep?: SleepStats): RoomStatsContext {
  const { scheduler, seating, seats, bots, reservations, listing, deferred, store } = parts;
  return {
    kind: base.kind,
    roomId: base.roomId,
    uptimeMs: base.clock.now() - base.epoch,
    connectedCount: seating.connectedCount,
    seatCount: seats.size,
    cap: base.options.cap,
    tickMs: base.options.tickMs,
    syncIntervalMs,
    queueInputs: base.options.queueInputs,
    loopRunning: scheduler.running,
    ticksSkipped: scheduler.skipped,
    bots: { count: bots.count, inputs: bots.inputs },
    reservations: { ...reservations.counts, pending: reservations.size },
    admissions: { ...seating.admissions.counts, waiting: seating.admissions.size },
    listing: { locked: listing.locked, private: listing.isPrivate, metadata: listing.metadata },
    deferred: { ...deferred.counts, pending: deferred.pending },
    store: { keys: store.size, chars: store.chars, version: store.version },
    busy: busy?.reading(),
    spectators: parts.spectators.stats(),
    sleep,
  };
}
