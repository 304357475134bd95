/**
 * What a game gives a host to make rooms of its kind: a `GameDefinition` (default options, a
 * factory, bot players), the DEV_MODE params it is made with, and the bots' contract.
 */
import type { GameParamOverrides, JoinOptionsDecl } from "@tikron/protocol";
import type { Game } from "./game";
import type { MatchmakingSpec } from "./match/matchmakingSpec";
import type { RoomOptions } from "./roomOptions";
import type { RecordSpec } from "./replay/recording";

/**
 * Game-level knobs a room may be created with (world size, AOI radius); DEV_MODE join
 * overrides reach here. The shape is the protocol's, since join URLs carry it.
 */
export type GameParams = GameParamOverrides;

/**
 * How an adapter creates a room of one kind: the kind's default options and a factory. The
 * registry of definitions is the only thing a host needs to know about games. `Env` is the host
 * environment its games expect in `ctx.env` (e.g. the Worker bindings they write results to):
 * a Cloudflare `RoomObject<Env>` takes only definitions its own `Env` satisfies.
 */
export interface GameDefinition<Env = unknown> {
  /** The room kind this definition creates (the `:kind` of `/rooms/:kind/:id`). */
  kind: string;
  /** Defaults layered over {@link defaultRoomOptions}. */
  defaults: Partial<RoomOptions>;
  /**
   * Creates the game of one new room from its resolved options and DEV_MODE params. `seed` (32
   * bits, drawn by the room) is what the game seeds its randomness with: a replay of a recorded
   * match hands the same one, so a game that draws only from it is made again the same.
   */
  create(options: RoomOptions, params: GameParams, seed: number): Game<unknown, Env>;
  /** Bot players for this kind (absent: rooms of this kind have no bots). */
  bots?: BotSpec;
  /** How players are matched to rooms of this kind (filters, metadata, queue; see docs/matchmaking.md). */
  matchmaking?: MatchmakingSpec;
  /**
   * Whether rooms of this kind record their matches (`true`, or a {@link RecordSpec}), on hosts
   * that keep recordings (Cloudflare: an R2 binding `REPLAYS`; Node: `serveRooms({ replays })`).
   * A recorded match replays exactly when the game draws its randomness from its seed and its
   * time from its context (docs/replay.md).
   */
  record?: boolean | RecordSpec;
  /**
   * The join options players of this kind may choose (`defineJoinOptions`; the constant the
   * game's client declaration names too): the room checks every hello's against it, and a
   * matchmaker every match request's, before any seat is held. Absent: none is accepted.
   */
  joinOptions?: JoinOptionsDecl;
}

/**
 * One bot's decisions. A brain produces input payloads with its game's own encoder (bytes in
 * binary rooms, a JSON value in JSON rooms); the room takes them through the same arrival path
 * as a player's (message budget, decode, `decodeInput`, queue, `applyInput`), so a bot cannot
 * do anything a player could not.
 */
export interface BotBrain {
  /** The next input payload at room time `now` (ms since the room's epoch), or null to send nothing this time. */
  next(now: number): Uint8Array | object | null;
  /**
   * A text message the room sent this bot (JSON rooms: its welcome and views), so a turn-based
   * bot can see the board. Binary rooms encode no frames for bots: their brains act blind or
   * from their own dead reckoning.
   */
  receive?(text: string): void;
}

/** How a game makes bots; on its `GameDefinition` as `bots`. */
export interface BotSpec {
  /** Ms between two inputs of one bot in a ticking room. */
  inputEveryMs: number;
  /** Makes the brain of the `index`-th bot (0-based, stable for a room's life). */
  create(index: number): BotBrain;
  /** Whether a production (non-DEV_MODE) gateway may add bots to this kind (default false). */
  allowInProduction?: boolean;
}
