import { flushIntervalMs, ratesProblem, type AnyGameTypes, type EventOf, type InputRejection, type NoticesOf, type RoomMetadata, type RoomRates } from "@tikron/protocol";
import { RoomStore, type GameStore } from "./gameStore";
import type { AdmitVerdict, JoiningPlayer, Player } from "./player";
import type { JsonStateSource, StateEncoder } from "./stateEncoder";

// The refusal shape is shared with clients (input codecs run on both sides), so it lives in the
// protocol; re-exported here so room code and games can keep importing it from the core.
export { reject, isRejection, type InputRejection } from "@tikron/protocol";

/**
 * What a game may ask of the room it runs in. Nothing here is transport-specific. `G`, the game's
 * client-facing declaration (`defineGameTypes`), types what it emits and the notices it sends
 * (`GameContext<typeof tagGame>`); without it they are unchecked.
 *
 * **Room time**, everywhere a game sees time (`now()`, `tick(now)`, `applyInput`'s `receivedAt`,
 * a bot brain's `next(now)`), is ms since the room's epoch: the clock FRAME `time` counts in
 * and the SDK's `roomTime()` estimates, so a time a client sends back means the same instant
 * here. It starts at 0 when the room is made (a restarted room starts again at 0).
 *
 * `Env` is the type of the host's environment the game expects in {@link GameContext.env}
 * (e.g. `{ DB?: D1Database }`-like bindings); a `GameDefinition<Env>` lets a host check it.
 */
export interface GameContext<G extends AnyGameTypes = AnyGameTypes, Env = unknown> {
  /** Room time now: ms since the room's epoch (see {@link GameContext}). */
  now(): number;
  /**
   * The room's epoch: the host clock's time of room time 0 (Unix ms on every host), so
   * `ctx.epoch + ctx.now()` is the date now. Read the date this way, never with `Date.now()`:
   * a replay of a recorded match gives the same epoch, and a game that reads the clock itself
   * is not replayed exactly (docs/replay.md).
   */
  readonly epoch: number;
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
  /**
   * Marks a change a player would lose in a restart (a score, an item picked up; not mere
   * movement): a ticking room's next checkpoint then comes `keepSoonMs` (room option, 200 ms) after its
   * last instead of a whole `checkpointMs` after it, so a restart takes at most about that much
   * of it. Cheap to call on every such change; turn-based rooms checkpoint every change anyway.
   */
  keepSoon(): void;
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

  // ---- what the game keeps, the host it runs on, and the room's rates --------------------

  /** The room's id within its kind (what results kept outside the room are filed under). */
  readonly roomId: string;
  /**
   * The room's small durable store: string keys to JSON values (at most `MAX_STORE_CHARS` of
   * keys and JSON text in all). The host keeps it with the room's checkpoint but apart from the
   * game's own `checkpoint()`, and across sessions: a restarted room, and the next room made
   * under the same id, start with it. See `GameStore` for what is written when.
   */
  readonly store: GameStore;
  /**
   * The host's environment, as the host was given it: the Worker's `env` on Cloudflare (its
   * bindings: D1, KV, …), `serveRooms({ env })` on the Node host, `TestRoom`'s `env` option in
   * tests (undefined when none was given). Opaque to the room; the game declares what it
   * expects with `Env` and reaches bindings only through {@link defer}.
   */
  readonly env: Env;
  /**
   * Runs async work off the tick path: a function runs once the current tick (or message) is
   * done, a promise is only watched. The host keeps running until it settles (Cloudflare:
   * `waitUntil`; the Node host waits for it before `close()` resolves); a failure is logged
   * and counted in `tk:stats` (`deferred.failed`), never thrown into the room. Returns false,
   * and runs nothing, while `MAX_PENDING_DEFERRED` pieces of work are still pending.
   */
  defer(work: Promise<unknown> | (() => Promise<unknown>), label?: string): boolean;
  /**
   * Changes how often the room ticks and flushes from now on (each rate omitted stays): the
   * loop moves onto a grid of the new tick length from this instant, flushes follow the new
   * `flushEveryTicks`, and every connected client is sent a CADENCE message (the SDK's
   * interpolation adapts). Returns the rates the room now runs at (the sync interval rounded up
   * to whole ticks). A restarted room starts at its definition's rates again.
   *
   * @throws RangeError for a rate outside the protocol's ranges (`TICK_MS_RANGE`,
   * `SYNC_INTERVAL_MS_RANGE`, whole ms); nothing changes then.
   */
  setRates(rates: Partial<RoomRates>): RoomRates;
}

/** Why a room was disposed (`Game.onDispose`). */
export interface DisposeInfo {
  /**
   * `empty`: no seat was taken (the last player left and the host let the room go); `shutdown`:
   * the host shut the room down with players seated (a server stopping).
   */
  reason: "empty" | "shutdown";
}

/**
 * A {@link GameContext} for a game outside a room (its own tests, tools driving its rules):
 * time 0, room id `detached`, nothing emitted or sent, counters dropped, metadata and store kept
 * in memory, no env (unless `parts` gives one), deferred work run but not watched, rates checked
 * and kept (50/50 at first); `parts` replaces any of it.
 */
export function detachedContext<G extends AnyGameTypes = AnyGameTypes, Env = unknown>(parts: Partial<Omit<GameContext<G, Env>, "metadata">> = {}): GameContext<G, Env> {
  let metadata: RoomMetadata = {};
  let rates: RoomRates = { tickMs: 50, syncIntervalMs: 50 };
  return {
    now: () => 0,
    epoch: 0,
    emit: () => {},
    markChanged: () => {},
    keepSoon: () => {},
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
    roomId: "detached",
    store: new RoomStore(() => {}),
    env: undefined as Env,
    defer: (work) => {
      void (typeof work === "function" ? Promise.resolve().then(work) : work).catch(() => {});
      return true;
    },
    setRates: (r) => {
      const next = { ...rates, ...r };
      const problem = ratesProblem(next);
      if (problem) throw new RangeError(problem);
      rates = { tickMs: next.tickMs, syncIntervalMs: flushIntervalMs(next.syncIntervalMs, next.tickMs) };
      return { ...rates };
    },
    ...parts,
  };
}

/**
 * A game room's rules. The room core seats players, queues inputs, runs the tick loop and
 * flushes; the game only simulates. Games never see sockets, bytes on the wire or Cloudflare.
 * `Env` is the host environment its context carries (see {@link GameContext}).
 */
export interface Game<Input = unknown, Env = unknown> {
  /** Room kind, e.g. `agar`. */
  readonly kind: string;
  /** How state reaches clients: a binary per-client encoder, or a JSON view source. */
  readonly sync:
    | {
        /** Binary rooms: per-client deltas. */
        mode: "binary";
        /** Encodes each client's delta at every flush (a `SyncWorld`'s `encoder`). */
        encoder: StateEncoder;
        /**
         * The `SyncWorld` whose `encoder` that is: named, the room can be relayed (its relays
         * mirror this world; AGENTS.md "Relays"). Typed loosely, since a world is invariant in
         * its schema; a host checks it is a `SyncWorld`.
         */
        world?: object;
      }
    | {
        /** JSON rooms (turn-based): per-player views as JSON values. */
        mode: "json";
        /** Produces each player's view when the game marks state changed. */
        source: JsonStateSource;
      };
  /** False for turn-based rooms: no tick loop runs, and state flushes when marked changed. */
  readonly ticking: boolean;
  /** Called once when the room is created, before any seat (or checkpoint) is restored. */
  init?(ctx: GameContext<AnyGameTypes, Env>): void;
  /**
   * Whether a player may take a seat (Colyseus's `onAuth`, PartyKit's `onBeforeConnect`): asked
   * for every new seat (not a reconnect, not a bot) after the room's own checks (join options,
   * lock, cap, join rates), with the player's record as it would be seated. Return nothing (or
   * `true`) to admit, `refuseJoin(code, reason)` to refuse: the player's join ends with
   * `join_refused` (4024) and the reason `<code>: <reason>`. May answer with a promise (read
   * `ctx.env`, a D1 table): the seat is counted against the cap while it waits, so concurrent
   * joins never seat past it, and an answer that takes longer than the room's
   * `admissionTimeoutMs` (or a throw, a rejection, `false`) refuses the join `admission_failed`,
   * retried by the client after a wait. Every refusal is counted in `tk:stats` (`refused.*`).
   */
  admit?(player: JoiningPlayer): AdmitVerdict | Promise<AdmitVerdict>;
  /**
   * A new player took a seat: its {@link Player} record (id, name, verified identity, claims,
   * join options), the same for the seat's whole life.
   */
  join(player: Player): void;
  /** The player's socket dropped; the seat is held for the reconnection window. */
  disconnected?(playerId: number): void;
  /** The player came back inside the window, with its seat's {@link Player} record (unchanged since `join`). */
  reconnected?(player: Player): void;
  /** The seat is freed for good (leave, or the window expired). */
  leave(playerId: number): void;
  /**
   * Validates and decodes one input payload (binary bytes, or a JSON value in JSON rooms)
   * without touching room state. Runs on arrival.
   */
  decodeInput(payload: Uint8Array | unknown): Input | InputRejection;
  /** Applies a decoded input. `receivedAt` is the room time it arrived (ms since the room's epoch). */
  applyInput(playerId: number, input: Input, receivedAt: number): void | InputRejection;
  /**
   * True when a tick with no inputs would change nothing now: no entity would move or change, no
   * event or notice would be sent, no timer of the game's own is pending (a respawn, a round's
   * countdown), no randomness would be drawn. Pure (it changes nothing itself) and cheap: a
   * ticking room asks it after a flush that sent its clients nothing new, and while it answers
   * true the room's loop sleeps (ticking only at its idle beats and due checkpoints) until an
   * input, a join, a leave, a message or an operator wakes it, on the same tick grid. Optional:
   * a game without it never sleeps; a game unsure answers false (a sleep it should not take
   * freezes its world).
   */
  still?(): boolean;
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
   * Object storage, so keep it small): a ticking game's world (`checkpointWorld` in
   * `@tikron/core/sync` saves a `SyncWorld`'s entities with their ids), a turn-based game's
   * board. Optional: without it a restarted room gives every restored seat a fresh entity
   * (`join`). Called outside any tick: a ticking room's every `RoomOptions.checkpointMs`, right
   * after a flush (a sleeping room's only once after its last change: core room/roomSleep.ts), and when it goes quiet (never while `checkpointMs` is 0); a turn-based room's
   * after each change. A world saved with `checkpointWorld` may be a piece of a chain the host
   * keeps (only what changed since the last one): return it as given, wherever in the value.
   */
  checkpoint?(): unknown;
  /**
   * The room was disposed: the host let it go once its last seat was freed, or shut it down.
   * Called once, after every socket is closed and the loop stopped; `leave` is not called for
   * seats still taken (`info.reason` is `shutdown` then). The context still defers work (flush
   * a result with `ctx.defer`) and takes `ctx.store` changes, which the host saves. A throw is
   * logged and counted (`errors.internal`).
   */
  onDispose?(info: DisposeInfo): void;
  /**
   * Restores a {@link checkpoint} into a fresh game, before any socket is seated. `players` are
   * the room's restored seats that state holds, each with its {@link Player} record as it was
   * (identity, claims and options kept by the room in each seat's own record, not the game's
   * checkpoint), all `disconnected` until they reconnect; `join` is not called for them. A seat
   * taken after the state was (a host that keeps seats apart from it) gets `join` with its record
   * after `restore`, and a player the state holds whose seat was freed since gets `leave`. Check the value whole before changing anything
   * and throw on one it cannot use: the room then starts the game fresh (each seat `join`ed anew).
   */
  restore?(state: unknown, players: readonly Player[]): void;
}
