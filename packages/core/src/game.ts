import type { AnyGameTypes, EventOf, InputRejection, NoticesOf, RoomMetadata } from "@tikron/protocol";
import type { JsonStateSource, StateEncoder } from "./stateEncoder";

// The refusal shape is shared with clients (input codecs run on both sides), so it lives in the
// protocol; re-exported here so room code and games can keep importing it from the core.
export { reject, isRejection, type InputRejection } from "@tikron/protocol";

/**
 * What a game may ask of the room it runs in. Nothing here is transport-specific. `G`, the game's
 * client-facing declaration (`defineGameTypes`), types what it emits and the notices it sends
 * (`GameContext<typeof tagGame>`); without it they are unchecked.
 */
export interface GameContext<G extends AnyGameTypes = AnyGameTypes> {
  /** Room time in ms (the clock the tick loop runs on). */
  now(): number;
  /**
   * Queues an event for the next flush. In binary rooms one of the schema's declared events
   * (`{ kind: "kill", killer, victim }`, encoded once here whatever its audience), or bytes of
   * the game's own codec; in JSON rooms a JSON value. `to` limits the audience to those player
   * ids; omitted means every connected player.
   *
   * @throws TypeError for an event object the room cannot encode: a kind its schema does not
   * declare, or any object when it declares no events.
   */
  emit(event: EventOf<G> | Uint8Array, to?: Iterable<number>): void;
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

  // ---- notices: JSON messages to players, outside the state stream --------------------------

  /**
   * Sends player `playerId` a notice (a scoreboard, a round's summary: rare, any JSON value),
   * typed by the declaration's `notices`. It goes out at the next flush, before that flush's
   * frame; a player who is not connected then misses it (it is not held for a reconnect).
   *
   * @throws RangeError for a type that is not 1–32 of `A-Z a-z 0-9 _ . : -`, or a payload whose
   * JSON is over MAX_NOTICE_PAYLOAD_CHARS; TypeError for a payload that is not JSON-able.
   */
  send<K extends keyof NoticesOf<G> & string>(playerId: number, type: K, data: NoticesOf<G>[K]): void;
  /** {@link send} to every connected player: the notice is encoded once. */
  broadcast<K extends keyof NoticesOf<G> & string>(type: K, data: NoticesOf<G>[K]): void;
}

/**
 * A {@link GameContext} for a game outside a room (its own tests, tools driving its rules):
 * time 0, nothing emitted or sent, counters dropped, metadata kept in memory; `parts` replaces any of it.
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
    send: () => {},
    broadcast: () => {},
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
  /** Applies a decoded input. `receivedAt` is the room time it arrived. */
  applyInput(playerId: number, input: Input, receivedAt: number): void | InputRejection;
  /** Advances the simulation by one tick. */
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
