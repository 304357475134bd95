import type { AnyGameTypes } from "@tikron/protocol";
// Only the core's public surface, as any host: the room's internals are not the harness's business.
import { FakeClock, createRoom, type Game, type GameDefinition, type GameParams, type Room, type RoomHooks, type RoomOptions, type RoomStatsSnapshot } from "../index";
import type { RecordingSink } from "../replay/index";
import { TestClient, type JoinOptions } from "./testClient";

/** Options of a {@link TestRoom}. */
export interface TestRoomOptions {
  /** Room id (default `test`). */
  roomId?: string;
  /** Room options layered over the definition's defaults, as a DEV_MODE join's overrides are. */
  overrides?: Partial<RoomOptions>;
  /** Game params (`world`, `aoi`) handed to the definition's `create`. */
  params?: GameParams;
  /** Session and checkpoint observers, as a host passes them. */
  hooks?: RoomHooks;
  /** The clock (default: a fresh `FakeClock`); share one to run several rooms on one timeline. */
  clock?: FakeClock;
  /** The host environment the game gets as `ctx.env` (fake bindings: a D1 stand-in, a KV map). */
  env?: unknown;
  /** The game's store as a host kept it (`room.storeSnapshot()` of an earlier room), to start from. */
  store?: unknown;
  /** The seed the game is made with (`GameDefinition.create`'s; default: 32 random bits, as a host draws them). */
  seed?: number;
  /** Where the match's log goes when the kind records (`createRoom`'s `recording`; see `@tikron/core/replay`). */
  recording?: RecordingSink;
}

/** 32 random bits: a game's seed when the test names none. */
export function drawSeed(): number {
  const b = new Uint32Array(1);
  crypto.getRandomValues(b);
  return b[0]!;
}

/**
 * Microtask turns {@link TestRoom.settle} lets pass: a turn-based room's flush is one, and a
 * game reacting to it in a promise chain a few more.
 */
const SETTLE_TURNS = 8;

/**
 * A game's room in memory, the way a host runs it but with no sockets and no real time: the
 * room is made by `createRoom` from the game's definition (or around a game instance), runs on
 * a `FakeClock`, and its players are {@link TestClient}s typed by the game's client declaration
 * (`defineGameTypes`, the same one the page connects with). Time moves only by {@link advance}.
 *
 * @example
 * ```ts
 * const room = new TestRoom(games.tag, tagGame);
 * const ann = room.join("ann");
 * ann.input({ dx: 1, dy: 0 });
 * room.advance(1000);
 * expect(ann.state.size).toBe(1);
 * await expect(ann.request("chat", { text: "" })).rejects.toMatchObject({ code: "bad_message" });
 * ```
 */
export class TestRoom<G extends AnyGameTypes, Gm extends Game = Game> {
  /** The real room: checkpoints, bots, options, anything a host may call. */
  readonly room: Room;
  /** The game instance the room runs (to read or arrange its state). */
  readonly game: Gm;
  /** The room's clock; prefer {@link advance}, which also reads what the clients received. */
  readonly clock: FakeClock;
  /** The client declaration the players speak. */
  readonly types: G;
  /** Clock time of room time 0 (the welcome's `roomEpoch`). */
  readonly epoch: number;
  readonly #clients: TestClient<G>[] = [];

  /** A room of the kind `definition` makes, with its defaults under `options.overrides`. */
  constructor(definition: GameDefinition, types: G, options?: TestRoomOptions);
  /** A room around `game` (made by the test, e.g. with a fixed seed); `options.overrides` are the room's options. */
  constructor(game: Gm, types: G, options?: TestRoomOptions);
  constructor(source: GameDefinition | Gm, types: G, options: TestRoomOptions = {}) {
    // A game instance takes the join options its declaration names; a definition names its own,
    // which must be the declaration's (else the page's options would be refused in every room).
    const definition: GameDefinition = "sync" in source ? { kind: source.kind, defaults: {}, create: () => source, joinOptions: types.joinOptions } : source;
    if (definition.joinOptions !== types.joinOptions) {
      throw new TypeError(`the declaration of ${types.kind} and the definition of room ${definition.kind} name different join options (pass the same defineJoinOptions constant to both)`);
    }
    this.clock = options.clock ?? new FakeClock();
    this.epoch = this.clock.now();
    let made: Game | undefined;
    // Through createRoom, as every host makes rooms; the wrapper only keeps the game it made.
    this.room = createRoom(
      { ...definition, create: (o, p, seed) => (made = definition.create(o, p, seed)) },
      {
        kind: definition.kind,
        roomId: options.roomId ?? "test",
        overrides: options.overrides,
        params: options.params,
        hooks: options.hooks,
        clock: this.clock,
        env: options.env,
        store: options.store,
        seed: options.seed ?? drawSeed(),
        recording: options.recording,
      },
    );
    this.game = made as Gm;
    const json = this.game.sync.mode === "json";
    if (types.json !== json) {
      throw new TypeError(`the declaration of ${types.kind} is ${types.json ? "JSON" : "binary"} but room ${definition.kind} syncs ${json ? "JSON" : "binary"}`);
    }
    this.types = types;
  }

  /**
   * Opens a socket for a new player and says hello as `name`; the welcome (or the refusal and
   * close: `room_full`, ...) has arrived when this returns.
   *
   * @throws Error when the room's admission refuses the socket before it opens.
   */
  join(name = "", options: JoinOptions<G> = {}): TestClient<G> {
    const client = new TestClient(this, this.types, name, options);
    this.#clients.push(client);
    return client;
  }

  /**
   * Moves the room's time forward by `ms`: every tick, flush and timer due on the way runs, in
   * order. Then every client reads what it received.
   *
   * @throws RangeError for a negative or non-finite `ms`; Error when a client cannot decode what
   * it received (see `TestClient.receive`).
   */
  advance(ms: number): void {
    this.clock.advance(ms);
    this.#receiveAll();
  }

  /**
   * Lets queued microtasks run and the game's deferred work (`ctx.defer`) settle: turn-based
   * rooms (`ticking: false`) flush on a microtask after a change, so await this after a move
   * before reading the players' views, and after anything that defers work (a fake binding's
   * promise) before looking at what it did.
   */
  async settle(): Promise<void> {
    for (let i = 0; i < SETTLE_TURNS; i++) await Promise.resolve();
    await this.room.deferredIdle();
    for (let i = 0; i < SETTLE_TURNS; i++) await Promise.resolve();
    this.#receiveAll();
  }

  /** Room time now (ms since {@link epoch}): what frame times count in. */
  get time(): number {
    return this.clock.now() - this.epoch;
  }

  /** The room's `tk:stats` snapshot. */
  stats(): RoomStatsSnapshot {
    return this.room.snapshot();
  }

  /** Every client joined so far, in join order. */
  get clients(): readonly TestClient<G>[] {
    return this.#clients;
  }

  #receiveAll(): void {
    for (const c of this.#clients) c.receive();
  }
}
