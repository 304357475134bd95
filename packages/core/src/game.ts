import type { InputRejection, RoomMetadata } from "@tikron/protocol";
import type { JsonStateSource, StateEncoder } from "./stateEncoder";

// The refusal shape is shared with clients (input codecs run on both sides), so it lives in the
// protocol; re-exported here so room code and games can keep importing it from the core.
export { reject, isRejection, type InputRejection } from "@tikron/protocol";

/**
 * What a game may ask of the room it runs in. Nothing here is transport-specific.
 *
 * **Room time**, everywhere a game sees time (`now()`, `tick(now)`, `applyInput`'s `receivedAt`,
 * a bot brain's `next(now)`), is ms since the room's epoch: the clock FRAME `time` counts in
 * and the SDK's `roomTime()` estimates, so a time a client sends back means the same instant
 * here. It starts at 0 when the room is made (a restarted room starts again at 0).
 */
export interface GameContext {
  /** Room time now: ms since the room's epoch (see {@link GameContext}). */
  now(): number;
  /**
   * Queues an event (opaque bytes in binary rooms, a JSON value in JSON rooms) for the next
   * flush. `to` limits the audience to those player ids; omitted means every connected player.
   */
  emit(event: Uint8Array | unknown, to?: Iterable<number>): void;
  /** Marks state as changed so a JSON room flushes (binary rooms flush on cadence anyway). */
  markChanged(): void;
  /** Increments a game-specific counter reported under `game` in `tk:stats`. */
  count(counter: string, by?: number): void;
  /**
   * The room's metadata: what its matchmaker lists it by and clients filter on (set at creation
   * from the create request's options, see `MatchmakingSpec.metadata`).
   */
  readonly metadata: Readonly<RoomMetadata>;
  /**
   * Merges `patch` into the metadata (a key set to `null` is removed): the matchmaker hears of
   * it off the tick path. Throws on a key or value a filter could not compare.
   */
  setMetadata(patch: Record<string, RoomMetadata[string] | null>): void;
  /** Locks the room: no new player is seated or matched here (held seats and reservations stand). */
  lock(): void;
  /** Unlocks the room. */
  unlock(): void;
  /** Makes the room private (never listed or picked; joined by id) or public again. */
  setPrivate(value: boolean): void;
}

/**
 * A {@link GameContext} for a game outside a room (its own tests, tools driving its rules):
 * time 0, nothing emitted, counters dropped, metadata kept in memory; `parts` replaces any of it.
 */
export function detachedContext(parts: Partial<Omit<GameContext, "metadata">> = {}): GameContext {
  let metadata: RoomMetadata = {};
  return {
    now: () => 0,
    emit: () => {},
    markChanged: () => {},
    count: () => {},
    get metadata() {
      return metadata;
    },
    setMetadata: (patch) => {
      const next: RoomMetadata = { ...metadata };
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete next[k];
        else next[k] = v;
      }
      metadata = next;
    },
    lock: () => {},
    unlock: () => {},
    setPrivate: () => {},
    ...parts,
  };
}

/**
 * A game room's rules. The room core seats players, queues inputs, runs the tick loop and
 * flushes; the game only simulates. Games never see sockets, bytes on the wire or Cloudflare.
 */
export interface Game<Input = unknown> {
  /** Room kind, e.g. `agar`. */
  readonly kind: string;
  /** How state reaches clients: a binary per-client encoder, or a JSON view source. */
  readonly sync:
    | {
        /** Binary rooms: per-client deltas. */
        mode: "binary";
        /** Encodes each client's delta at every flush (a `SyncWorld`'s `encoder`). */
        encoder: StateEncoder;
      }
    | {
        /** JSON rooms (turn-based): per-player views as JSON values. */
        mode: "json";
        /** Produces each player's view when the game marks state changed. */
        source: JsonStateSource;
      };
  /** False for turn-based rooms: no tick loop runs, and state flushes when marked changed. */
  readonly ticking: boolean;
  /** Called once when the room is created. */
  init?(ctx: GameContext): void;
  /** A new player took a seat. */
  join(playerId: number, name: string): void;
  /** The player's socket dropped; the seat is held for the reconnection window. */
  disconnected?(playerId: number): void;
  /** The player came back inside the window. */
  reconnected?(playerId: number): void;
  /** The seat is freed for good (leave, or the window expired). */
  leave(playerId: number): void;
  /**
   * Validates and decodes one input payload (binary bytes, or a JSON value in JSON rooms)
   * without touching room state. Runs on arrival.
   */
  decodeInput(payload: Uint8Array | unknown): Input | InputRejection;
  /** Applies a decoded input. `receivedAt` is the room time it arrived (ms since the room's epoch). */
  applyInput(playerId: number, input: Input, receivedAt: number): void | InputRejection;
  /** Advances the simulation by one tick: `now` is the tick's room time (ms since the room's epoch, the FRAME `time` of this tick's flush), `dtMs` the tick length. */
  tick(now: number, dtMs: number): void;
  /**
   * A game message (the protocol's MESSAGE kind) from a seated player (chat, ready, a vote), outside the tick: called
   * on arrival, after the room's rate limit and size check, with the payload parsed from JSON
   * but not validated (it is `unknown`: check it). Return the reply value (JSON-able; sent when
   * the client asked for one), or `refuseMessage(code, reason)` to refuse; a throw is answered
   * `internal`. Other players hear of it through `ctx.emit`. Without this method every message
   * is refused `unknown_message`. `messageHandlers` (gameMessages.ts) builds one typed from the
   * game's declaration.
   */
  onMessage?(playerId: number, type: string, payload: unknown): unknown;
  /**
   * The game state a restart needs, as a JSON-able value (the host stores it, e.g. in Durable
   * Object storage). Optional: without it a restarted room gives every restored seat a fresh
   * entity (`join`). Called off the tick path, at most every few seconds or after a change.
   */
  checkpoint?(): unknown;
  /**
   * Restores a {@link checkpoint} into a fresh game, before any socket is seated. The players
   * it names are the room's restored seats, all disconnected until they reconnect; `join` is
   * not called for them. Throw on a value it cannot use: the room then starts the game fresh.
   */
  restore?(state: unknown): void;
}
