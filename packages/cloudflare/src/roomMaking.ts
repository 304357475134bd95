/**
 * How a room's object makes its core room: the request the core gets (the join's overrides and
 * params, the listing, the Worker's env, the kept store, the clock and the object's busy meter)
 * for the core's one choice between a single room and a relayed room's simulation
 * (`createPlacedRoom`). Apart from
 * `RoomObject` because what a room is made of is read in one place; which parts of the object
 * are wired to it (sockets, reporter, operations) stays with the object.
 */
import { systemClock, type BusyMeter, type GameDefinition, type ListingInit, type RoomHooks } from "@tikron/core";
import { overridesKey } from "@tikron/core/match";
import { createPlacedRoom, type PlacedRoom } from "@tikron/core/relay";
import type { RecordingSink } from "@tikron/core/replay";
import type { RoomRequestMeta } from "./roomRequest";

/** What of the object a new room is made with. */
export interface RoomMakings {
  /** The room's callbacks into its object. */
  hooks: RoomHooks;
  /** The Worker's env, the game's `ctx.env`. */
  env: unknown;
  /** The game's store as the object kept it. */
  store: unknown;
  /** The object's meter of its own time. */
  busy: BusyMeter;
  /** Where the room's match log goes when its kind records (roomReplays.ts); absent: not recorded. */
  recording?: RecordingSink;
}

/**
 * Makes the room `meta` names, relayed over `relays` relays when ≥ 1 (it throws when the game
 * cannot be relayed), listed as `listing` says (a matchmaker's room) or by its overrides.
 */
export function makeRoom(def: GameDefinition, meta: RoomRequestMeta, listing: ListingInit | undefined, relays: number, makings: RoomMakings): PlacedRoom {
  const request = {
    kind: meta.kind,
    roomId: meta.roomId,
    overrides: meta.options,
    params: meta.params,
    hooks: makings.hooks,
    listing: listing ?? { overrides: overridesKey(meta.options, meta.params as Record<string, unknown>) },
    env: makings.env,
    store: makings.store,
    // Its next task (a big flush's later slices) is a zero-delay setTimeout: workerd runs it as
    // an event of its own, after the WebSocket messages and timers already waiting. That exists
    // under every compatibility date, where setImmediate needs Node.js compatibility (on by
    // default only from the 2026-08-04 date; a game's own Worker may be older) and
    // MessageChannel was long missing from Workers. Whether either gets back to the room sooner
    // under load is for a profile to say, not assumed.
    clock: systemClock,
    busy: makings.busy,
    recording: makings.recording,
  };
  return createPlacedRoom(def, request, relays);
}
