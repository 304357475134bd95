/**
 * `createRoom`: how every host makes a room of a kind from its definition and the join that
 * creates it.
 */
import type { BusyMeter } from "./busyMeter";
import type { Clock } from "./clock";
import type { GameDefinition, GameParams } from "./gameDefinition";
import type { RoomHooks } from "./host";
import { Room } from "./room";
import { resolveRoomOptions, type RoomOptions } from "./roomOptions";
import type { ListingInit } from "./match/roomStatus";

/** What a host knows when the first socket of a room arrives. */
export interface RoomRequest {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** The join's DEV_MODE overrides (see the protocol's `parseRoomOverrides`). */
  overrides?: Partial<RoomOptions>;
  /** DEV_MODE game params (`world`, `aoi`). */
  params?: GameParams;
  /** Session start/end callbacks (records). */
  hooks?: RoomHooks;
  /** Clock the room runs on (default: the system clock). */
  clock?: Clock;
  /** The host's meter of the object's own time (`RoomInit.busy`). */
  busy?: BusyMeter;
  /** How a matchmaker lists the room (a room made by a matchmaker: its metadata and visibility). */
  listing?: ListingInit;
  /** The host's environment, the game's `ctx.env` (the Worker's `env`, `serveRooms({ env })`). */
  env?: unknown;
  /** The game's store as the host kept it (`HostedRoom.storeSnapshot`), if any. */
  store?: unknown;
}

/**
 * How every host makes a room of a kind: options resolved once (defaults, the kind's defaults,
 * the join's overrides) and handed, the same object, to the game and to the room.
 */
export function createRoom(definition: GameDefinition, request: RoomRequest): Room {
  const options = resolveRoomOptions(definition.defaults, request.overrides);
  const game = definition.create(options, request.params ?? {});
  const { kind, roomId, hooks, clock, busy, listing, env, store } = request;
  return new Room({ kind, roomId, game, options, hooks, clock, busy, bots: definition.bots, joinOptions: definition.joinOptions, listing, env, store });
}
