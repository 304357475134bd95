/**
 * How a host makes the two sides of a relayed room from a game's definition: the simulation
 * (`createSimulation`) where the room lives, and a relay (`createRelay`) wherever its sockets go.
 */
import type { Game } from "../game";
import type { GameDefinition } from "../gameDefinition";
import type { HostedRoom } from "../hostedRoom";
import { createRoom, roomInitFor, type RoomRequest } from "../roomFactory";
import { resolveRoomOptions } from "../roomOptions";
import { SyncWorld } from "../sync/syncWorld";
import type { RelayPort } from "./relayPort";
import { RelayRoom } from "./relayRoom";
import { RelaySimulation } from "./simulation";

/** The world a relayed room of `game` follows; a clear error for a game that cannot be relayed. */
function relayedWorld(game: Game): SyncWorld {
  const world = game.sync.mode === "binary" ? game.sync.world : undefined;
  if (!(world instanceof SyncWorld)) throw new TypeError(`${game.kind} cannot be relayed: its binary sync does not name its SyncWorld (sync.world)`);
  return world;
}

/**
 * The simulation of a relayed room of the kind `definition` makes: the room `createRoom` would
 * make (same options, hooks, listing, store), with its clients behind relays.
 */
export function createSimulation(definition: GameDefinition, request: RoomRequest): RelaySimulation {
  const init = roomInitFor(definition, request);
  return new RelaySimulation(init, relayedWorld(init.game));
}

/**
 * A relay of a relayed room of the kind `definition` makes, with the options the simulation
 * resolves from the same request; `port` carries its messages to the simulation. Its mirror's
 * layout (schema, tiers, cell size) is read from a game made with the same options and params,
 * which is dropped: the relay runs no game.
 */
export function createRelay(definition: GameDefinition, request: Pick<RoomRequest, "kind" | "roomId" | "overrides" | "params" | "clock" | "busy"> & { index?: number }, port: RelayPort): RelayRoom {
  const options = resolveRoomOptions(definition.defaults, request.overrides);
  // Made only to read its world's layout: any seed will do.
  const world = relayedWorld(definition.create(options, request.params ?? {}, 0));
  return new RelayRoom({ kind: request.kind, roomId: request.roomId, schema: world.schema, world: world.options, options, port, clock: request.clock, busy: request.busy, index: request.index });
}

/** A room as a host makes it for its placement: its simulation when it is relayed (whose room `room` is), else null. */
export interface PlacedRoom {
  /** The core room the host holds. */
  room: HostedRoom;
  /** A relayed room's simulation, else null. */
  simulation: RelaySimulation | null;
}

/**
 * The one choice between a single room and a relayed room's simulation: the room `request`
 * names, relayed over `relays` relays when ≥ 1 (core placement: `relaysFor`, a stored count, a
 * promotion's), else single. Throws when the game cannot be relayed.
 */
export function createPlacedRoom(definition: GameDefinition, request: RoomRequest, relays: number): PlacedRoom {
  const simulation = relays >= 1 ? createSimulation(definition, request) : null;
  return { room: simulation ? simulation.room : createRoom(definition, request), simulation };
}
