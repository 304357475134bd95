/**
 * How a room's object tells its kind's matchmaker about the room (seats, reservations, listing):
 * the core's `StatusReporter` wired to the matchmaker shard the room's id belongs to. Apart from
 * `RoomObject` because it is the one place a room reaches its matchmaker (the matchmaker reaching
 * the room is `RoomObject.reserveSeats`).
 */
import { systemClock, type BusyMeter, type ListedRoom } from "@tikron/core";
import { resolveMatchmaking, shardOfRoom, StatusReporter, type MatchmakingSpec } from "@tikron/core/match";
import { matchmakerStub } from "./matchGateway";

/**
 * How long a room's status change waits for the changes after it before it is reported: a burst
 * of joins into a room (reservations, hellos) becomes one report instead of one per change. The
 * matchmaker learns each seat request's answer with its status, and counts its own requests in
 * flight, so the delay steers nothing wrong.
 */
export const STATUS_COALESCE_MS = 100;

/**
 * The status reporter of a new room: one report in flight at a time to the matchmaker shard its
 * id belongs to, changes coalesced ({@link STATUS_COALESCE_MS}), from `waitUntil`, never awaited
 * on a tick (core/match `StatusReporter`); its timers are entries of the object on `busy`
 * (labelled `report`). Null without a `MATCHMAKER` binding in `env`; `matchmaking` is the
 * kind's definition's.
 */
export function statusReporterFor(
  env: unknown,
  matchmaking: MatchmakingSpec | undefined,
  kind: string,
  roomId: string,
  room: ListedRoom,
  waitUntil: (work: Promise<unknown>) => void,
  busy: BusyMeter,
): StatusReporter | null {
  const ns = (env as { MATCHMAKER?: DurableObjectNamespace } | undefined)?.MATCHMAKER;
  if (!ns || typeof ns.idFromName !== "function") return null;
  const shard = shardOfRoom(roomId, resolveMatchmaking(matchmaking).shards);
  return new StatusReporter({
    current: () => room.status(),
    send: (status) => {
      const sent = matchmakerStub(ns, kind, shard).report(kind, shard, status);
      waitUntil(sent.catch(() => {}));
      return sent;
    },
    clock: busy.clock(systemClock, "report"),
    coalesceMs: STATUS_COALESCE_MS,
    onError: (e) => console.warn(`[room ${kind}:${roomId}] matchmaker report failed:`, e instanceof Error ? e.message : e),
  });
}
