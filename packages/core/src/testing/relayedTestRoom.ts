/**
 * A relayed room in memory for tests (`RelayedTestRoom`): a simulation and K relays wired by
 * in-memory ports, with the same test clients a `TestRoom` has.
 */
import type { AnyGameTypes, SchemaDecl } from "@tikron/protocol";
import { FakeClock, resolveRoomOptions, type Game, type GameDefinition, type Room, type RoomInit, type RoomOptions, type RoomStatsSnapshot } from "../index";
import { MemoryPort, RelayRoom, RelaySimulation, type RelayedStatsSnapshot } from "../relay/index";
import type { SyncWorld, SyncWorldOptions } from "../sync/index";
import { TestClient, type JoinOptions } from "./testClient";
import { drawSeed, type TestRoomOptions } from "./testRoom";

/** Options of a {@link RelayedTestRoom}. */
export interface RelayedTestRoomOptions<Gm extends Game, D extends SchemaDecl = SchemaDecl> extends TestRoomOptions {
  /** How many relays hold the clients' sockets (default 2). */
  relays?: number;
  /** The game's world, which the simulation's feed follows (the one its `sync.encoder` encodes). */
  world(game: Gm): SyncWorld<D>;
  /** That world's options (tiers, cell size): the relays' mirrors are laid out the same. */
  worldOptions: SyncWorldOptions;
}

/** How a client of a {@link RelayedTestRoom} joins: a {@link JoinOptions} and the relay it joins through. */
export interface RelayedJoinOptions<G extends AnyGameTypes = AnyGameTypes> extends JoinOptions<G> {
  /** Index of the relay (default: round robin). */
  relay?: number;
}

/**
 * A game's room in memory split as a relayed room runs: one simulation (the room, its game and
 * seats) and K relays holding the clients' sockets, linked by in-memory ports. Its clients are
 * the same {@link TestClient}s a `TestRoom` has, each joined through one relay, so a test reads
 * exactly what a client behind a relay decodes.
 */
export class RelayedTestRoom<G extends AnyGameTypes, Gm extends Game = Game, D extends SchemaDecl = SchemaDecl> {
  /** The simulation: its room is the real room (seats, stats, checkpoints); another after {@link restartSimulation}. */
  simulation: RelaySimulation<D>;
  /** The relays, in order. */
  readonly relays: RelayRoom<D>[] = [];
  /** The ports to the simulation, per relay (messages, bytes; hold or drop them to test a link). */
  readonly toSimulation: MemoryPort[] = [];
  /** The ports to each relay, from the simulation. */
  readonly toRelay: MemoryPort[] = [];
  /** The game instance the simulation runs (another after {@link restartSimulation}). */
  game: Gm;
  /** The clock the simulation and every relay run on; prefer {@link advance}. */
  readonly clock: FakeClock;
  /** The client declaration the players speak. */
  readonly types: G;
  /** Clock time of room time 0. */
  readonly epoch: number;
  readonly #clients: TestClient<G>[] = [];
  #nextRelay = 0;
  readonly #kind: string;
  readonly #roomId: string;
  readonly #options: RoomOptions;
  readonly #world: SyncWorld<D>;
  readonly #worldOptions: SyncWorldOptions;
  readonly #definition: GameDefinition;
  readonly #params: NonNullable<RelayedTestRoomOptions<Gm, D>["params"]>;
  readonly #init: Omit<RoomInit, "game">;
  readonly #worldOf: (game: Gm) => SyncWorld<D>;

  /** A relayed room of the kind `definition` makes (or around `game`), with its defaults under `options.overrides`. */
  constructor(source: GameDefinition | Gm, types: G, options: RelayedTestRoomOptions<Gm, D>) {
    const definition: GameDefinition = "sync" in source ? { kind: source.kind, defaults: {}, create: () => source, joinOptions: types.joinOptions } : source;
    const clock = (this.clock = options.clock ?? new FakeClock());
    this.epoch = clock.now();
    const resolved = resolveRoomOptions(definition.defaults, options.overrides);
    const game = (this.game = definition.create(resolved, options.params ?? {}, options.seed ?? drawSeed()) as Gm);
    const roomId = options.roomId ?? "test";
    this.#definition = definition;
    this.#params = options.params ?? {};
    this.#init = { kind: definition.kind, roomId, options: resolved, hooks: options.hooks, clock, env: options.env, store: options.store, joinOptions: definition.joinOptions };
    this.#worldOf = options.world;
    this.#world = options.world(game);
    this.simulation = new RelaySimulation({ ...this.#init, game }, this.#world);
    this.types = types;
    this.#kind = definition.kind;
    this.#roomId = roomId;
    this.#options = resolved;
    this.#worldOptions = options.worldOptions;
    for (let i = 0; i < (options.relays ?? 2); i++) this.addRelay();
  }

  /**
   * Starts one more relay, linked to the simulation (as a relay started mid-game is: its mirror
   * starts from the snapshot the next flush carries); returns its index for `join`.
   */
  addRelay(): number {
    const up = new MemoryPort();
    const down = new MemoryPort();
    const relay = new RelayRoom({ kind: this.#kind, roomId: this.#roomId, schema: this.#world.schema, world: this.#worldOptions, options: { ...this.#options }, port: up, clock: this.clock, index: this.relays.length });
    up.connect(this.simulation.connectRelay(down));
    down.connect((data) => relay.receive(data));
    this.relays.push(relay);
    this.toSimulation.push(up);
    this.toRelay.push(down);
    return this.relays.length - 1;
  }

  /**
   * The simulation's object dies and comes back from `checkpoint` (the old room's, by default
   * as it is now; pass an older one to restart from it): the old simulation is cut off (nothing
   * more crosses its ports) and stopped, every relay loses its link (`RelayRoom.unlinked`), a new
   * simulation of a new game restores the checkpoint, and the relays link to it in order
   * (`RelayRoom.relinked`) unless `relink` is false (then call {@link RelayedTestRoom.relink}).
   */
  restartSimulation(checkpoint: unknown = JSON.parse(JSON.stringify(this.simulation.room.checkpoint())), relink = true): void {
    for (const p of [...this.toRelay, ...this.toSimulation]) {
      p.immediate = false;
      p.drop();
    }
    this.simulation.room.dispose();
    for (const p of this.toRelay) p.drop();
    for (const r of this.relays) r.unlinked();
    const game = (this.game = this.#definition.create(this.#options, this.#params, drawSeed()) as Gm);
    this.simulation = new RelaySimulation({ ...this.#init, game }, this.#worldOf(game));
    this.simulation.room.restoreCheckpoint(checkpoint);
    if (relink) for (let i = 0; i < this.relays.length; i++) this.relink(i);
  }

  /** Relay `i` links to the simulation as it is now (after {@link restartSimulation}). */
  relink(i: number): void {
    const relay = this.relays[i]!;
    const up = new MemoryPort();
    const down = new MemoryPort();
    down.connect((data) => relay.receive(data));
    up.connect(this.simulation.connectRelay(down));
    this.toSimulation[i] = up;
    this.toRelay[i] = down;
    relay.relinked(up);
  }

  /** The simulation's room. */
  get room(): Room {
    return this.simulation.room;
  }

  /** Opens a socket on a relay for a new player and says hello as `name` (see `TestRoom.join`). */
  join(name = "", options: RelayedJoinOptions<G> = {}): TestClient<G> {
    const i = options.relay ?? this.#nextRelay++ % this.relays.length;
    const client = new TestClient({ room: this.relays[i]!, clock: this.clock }, this.types, name, options);
    this.#clients.push(client);
    return client;
  }

  /**
   * Every relay sends the inputs it holds, then the room's time moves forward by `ms` (see
   * `TestRoom.advance`): inputs sent before an advance reach the next tick, as in a `TestRoom`.
   */
  advance(ms: number): void {
    for (const r of this.relays) r.sendInputs();
    this.clock.advance(ms);
    for (const c of this.#clients) c.receive();
  }

  /** The room's `tk:stats` snapshot: the simulation's, with its relays' reports summed and apart. */
  stats(): RelayedStatsSnapshot {
    return this.simulation.room.snapshot() as RelayedStatsSnapshot;
  }

  /** Every client joined so far, in join order. */
  get clients(): readonly TestClient<G>[] {
    return this.#clients;
  }
}
