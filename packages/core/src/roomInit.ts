/**
 * What a room is made of (`RoomInit`): the game, its options, clock and meter, the host's hooks
 * and environment, the kind's bots and join options, its listing, its kept store and its
 * recorder. Apart from host.ts because it names the room's own parts (the game, the recorder):
 * the host contract names none. Hosts usually go through `createRoom` (roomFactory.ts).
 */
import type { JoinOptionsDecl } from "@tikron/protocol";
import type { BusyMeter } from "./busyMeter";
import type { Clock } from "./clock";
import type { Game } from "./game";
import type { BotSpec } from "./gameDefinition";
import type { RoomHooks } from "./host";
import type { ListingInit } from "./match/roomStatus";
import type { MatchRecorder } from "./replay/matchRecorder";
import type { RoomOptions } from "./roomOptions";

/** What a room is made of; hosts usually go through `createRoom` (roomFactory.ts). */
export interface RoomInit {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** The game this room runs. */
  game: Game;
  /** Layered over the defaults by `resolveRoomOptions`. */
  options?: Partial<RoomOptions>;
  /** Clock the room runs on (default: the system clock; tests pass a `FakeClock`). */
  clock?: Clock;
  /**
   * The host's meter of the object's own time (busyMeter.ts): the room counts its timers on it
   * and reports it in `tk:stats` (`busy`). Absent: no `busy` figure.
   */
  busy?: BusyMeter;
  /** Observers of the room's life (records, restarts, the lobby). */
  hooks?: RoomHooks;
  /** The kind's bot players (from its `GameDefinition`). */
  bots?: BotSpec;
  /** The join options the kind's players may choose (its `GameDefinition.joinOptions`); absent: none. */
  joinOptions?: JoinOptionsDecl;
  /** How a matchmaker lists the room: initial metadata, visibility, creation overrides. */
  listing?: ListingInit;
  /** The host's environment, handed to the game as `ctx.env` (see `GameContext.env`). */
  env?: unknown;
  /**
   * The game's store as the host kept it (`HostedRoom.storeSnapshot`); a value that is not
   * one is refused (`errors.store_refused`, an empty store).
   */
  store?: unknown;
  /**
   * The recorder of the room's match (`createRoom` makes one when the host asks for recording
   * and the kind's definition records: `@tikron/core/replay`); absent: not recorded.
   */
  recorder?: MatchRecorder;
}
