/**
 * `createRoom`: how every host makes a room of a kind from its definition and the join that
 * creates it.
 */
import type { BusyMeter } from "./busyMeter";
import type { Clock } from "./clock";
import type { GameDefinition, GameParams } from "./gameDefinition";
import type { RoomHooks } from "./host";
import type { RoomInit } from "./roomInit";
import { Room } from "./room";
import { resolveRoomOptions, type RoomOptions } from "./roomOptions";
import type { ListingInit } from "./match/roomStatus";
import type { MatchRecorder } from "./replay/matchRecorder";
import { LogRecorder, type MatchStart } from "./replay/logRecorder";
import { resolveRecordSpec, type RecordingSink } from "./replay/recording";

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
  /**
   * Where the match's log goes, when the kind records (its definition's `record`): a host that
   * keeps recordings passes its sink (docs/replay.md). Absent: the room is not recorded.
   */
  recording?: RecordingSink;
  /** The seed the game is made with (default: 32 random bits). A replay passes the recorded one. */
  seed?: number;
  /** Makes the room's recorder in place of a recording's (a replay's, which compares). */
  recorder?: (start: MatchStart) => MatchRecorder;
}

/** 32 random bits. */
function randomSeed(): number {
  const b = new Uint32Array(1);
  crypto.getRandomValues(b);
  return b[0]!;
}

/**
 * What a room of `definition` is made of, for `request`: options resolved once (defaults, the
 * kind's defaults, the join's overrides) and handed, the same object, to the game and to the
 * room; the game made with a seed; a recorder when the room is recorded. `createRoom` and a
 * relayed room's `createSimulation` share it.
 */
export function roomInitFor(definition: GameDefinition, request: RoomRequest): RoomInit {
  const options = resolveRoomOptions(definition.defaults, request.overrides);
  const params = request.params ?? {};
  const seed = request.seed ?? randomSeed();
  // What the game is made with, as text now: the room may change its rates later.
  const start: MatchStart = {
    kind: request.kind,
    roomId: request.roomId,
    seed,
    options: JSON.stringify(options),
    params: JSON.stringify(params),
    store: request.store === undefined ? "" : JSON.stringify(request.store),
    listing: request.listing === undefined ? "" : JSON.stringify(request.listing),
  };
  const game = definition.create(options, params, seed);
  const spec = resolveRecordSpec(definition.record);
  const recorder = request.recorder ? request.recorder(start) : request.recording && spec ? new LogRecorder(start, request.recording, spec) : undefined;
  const { kind, roomId, hooks, clock, busy, listing, env, store } = request;
  return { kind, roomId, game, options, hooks, clock, busy, bots: definition.bots, joinOptions: definition.joinOptions, listing, env, store, recorder };
}

/**
 * How every host makes a room of a kind: options resolved once (defaults, the kind's defaults,
 * the join's overrides) and handed, the same object, to the game and to the room.
 */
export function createRoom(definition: GameDefinition, request: RoomRequest): Room {
  return new Room(roomInitFor(definition, request));
}
