/**
 * The checkpoint of a ticking game whose players are one entity each (agar, movement, fps): its
 * world's entities (core `checkpointWorld`) and which entity is whose, and that read back,
 * checked whole before the game touches anything.
 */
import { checkpointWorld, readWorldCheckpoint, type SavedEntity, type SyncWorld, type WorldCheckpoint } from "@tikron/core/sync";
import type { Schema, SchemaDecl } from "@tikron/protocol";

/** What `checkpoint()` of such a game returns. JSON-able; a few bytes per entity. */
export interface PlayerWorldCheckpoint {
  /** Format version of this shape. */
  v: 1;
  /** Every entity of the world, ids kept. */
  world: WorldCheckpoint;
  /** Player id and entity id, pair after pair (flat: a 300-player room stays one short array). */
  players: number[];
}

/** One player of a checkpoint read back: its id and its saved entity. */
export interface SavedPlayer<E> {
  /** The player's id (a restored seat's). */
  playerId: number;
  /** Its entity as saved: id, type, record. */
  entity: E;
}

/** The world and its players' entities, as {@link readPlayerWorld} returns them. */
export interface PlayerWorld<D extends SchemaDecl, K extends keyof D & string> {
  /** Every saved entity by id, the players' included. */
  entities: Map<number, SavedEntity<D>>;
  /** The players, in saved order, each with its entity of type `K`. */
  players: SavedPlayer<Extract<SavedEntity<D>, { type: K }>>[];
}

/** The checkpoint of `world` whose players' entities `entityOf` lists (player id → entity id). */
export function checkpointPlayers<D extends SchemaDecl>(world: SyncWorld<D>, entityOf: Iterable<readonly [number, number]>): PlayerWorldCheckpoint {
  const players: number[] = [];
  for (const [playerId, entity] of entityOf) players.push(playerId, entity);
  return { v: 1, world: checkpointWorld(world), players };
}

/**
 * A {@link PlayerWorldCheckpoint} of `schema` read back, each player's entity of type
 * `playerType`. Throws on anything it cannot use whole: another version or schema, a player id
 * or entity named twice, a player whose entity is missing or of another type.
 */
export function readPlayerWorld<D extends SchemaDecl, K extends keyof D & string>(schema: Schema<D>, state: unknown, playerType: K): PlayerWorld<D, K> {
  const c = state as Partial<PlayerWorldCheckpoint> | null;
  if (!c || typeof c !== "object" || c.v !== 1 || !Array.isArray(c.players) || c.players.length % 2 !== 0) throw new Error("not a player-world checkpoint");
  const entities = readWorldCheckpoint(schema, c.world);
  const players: PlayerWorld<D, K>["players"] = [];
  const ids = new Set<number>();
  const taken = new Set<number>();
  for (let i = 0; i < c.players.length; i += 2) {
    const playerId = c.players[i];
    const id = c.players[i + 1];
    if (!Number.isInteger(playerId) || playerId < 1 || ids.has(playerId)) throw new Error(`checkpoint player id ${playerId} is not valid`);
    const entity = entities.get(id);
    if (!entity || entity.type !== playerType || taken.has(id)) throw new Error(`checkpoint player ${playerId} has no ${playerType} entity ${id}`);
    ids.add(playerId);
    taken.add(id);
    players.push({ playerId, entity: entity as Extract<SavedEntity<D>, { type: K }> });
  }
  return { entities, players };
}
