/**
 * `Roster`: the players of a game that gives each player one entity, by id and as the dense list
 * its tick walks.
 */
import type { SyncWorld } from "@tikron/core/sync";

/** What a roster keeps of each player's body: its entity, and whether its socket is gone. */
export interface RosterBody {
  /** The player's entity in the world. */
  readonly entity: number;
  /** Frozen while the player's socket is gone (seat held for a reconnect). */
  idle: boolean;
}

/**
 * The players of a game whose players are one entity each (agar's cells, movement's walkers):
 * by player id and as a dense list the tick walks without an iterator. The seat's life maps
 * onto it: `disconnected` freezes a body, `reconnected` thaws it, `leave` despawns it. What a
 * body is and what an input does to it stays the game's.
 */
export class Roster<B extends RosterBody> {
  private readonly byId = new Map<number, B>();
  /** Every body, for the tick loop; replaced (not mutated) when a player leaves. */
  list: B[] = [];

  constructor(private readonly world: Pick<SyncWorld, "despawn" | "removeViewer">) {}

  /** A player joined with this body (already spawned). */
  add(playerId: number, body: B): void {
    this.byId.set(playerId, body);
    this.list.push(body);
  }

  /** The body of a player, if it is in the game. */
  get(playerId: number): B | undefined {
    return this.byId.get(playerId);
  }

  /** Every body, in join order. */
  values(): IterableIterator<B> {
    return this.byId.values();
  }

  /** Each player id with its body's entity (what a checkpoint saves), in join order. */
  *entities(): IterableIterator<[number, number]> {
    for (const [playerId, body] of this.byId) yield [playerId, body.entity];
  }

  /** The player's socket dropped: its body stands still until it comes back or leaves. */
  disconnected(playerId: number): void {
    const b = this.byId.get(playerId);
    if (b) b.idle = true;
  }

  /** The player came back inside the reconnection window. */
  reconnected(playerId: number): void {
    const b = this.byId.get(playerId);
    if (b) b.idle = false;
  }

  /** The seat is freed: the body leaves the world and the roster. */
  leave(playerId: number): void {
    const b = this.byId.get(playerId);
    if (!b) return;
    this.world.despawn(b.entity);
    this.world.removeViewer(playerId);
    this.byId.delete(playerId);
    this.list = this.list.filter((x) => x !== b);
  }
}
