import type { BinaryWriter } from "@tikron/protocol";
import type { Rng } from "./rng";

/** What a scenario may learn from the welcome (for room-time stamps and "is this mine?"). */
export interface WelcomeInfo {
  playerId: number;
  tickMs: number;
  /** Epoch ms of room time 0. */
  roomEpoch: number;
  /** Server clock − local clock (ms), estimated from the welcome (one-way delay ignored). */
  clockOffsetMs: number;
}

/**
 * One game's load profile: the public scenario API. A built-in scenario is one file implementing
 * this plus one line in the registry; a game developer's own scenario is one file passed with
 * `--scenario ./myScenario.ts` (its default export, checked by {@link defineScenario}). The
 * generator, metrics and reports stay untouched either way.
 */
export interface Scenario<S = unknown> {
  /** Binary wire mode (the default): fixed-rate inputs, FRAMEs parsed in place. */
  readonly wire?: "binary";
  /** CLI name (`--scenario agar`). */
  readonly name: string;
  /** Room kind in the URL path: /rooms/<roomKind>/<roomId>. */
  readonly roomKind: string;
  /** Inputs per second per player when `--rate` is not given. */
  readonly defaultRate: number;
  /** Upper bound on one payload (≤ MAX_INPUT_PAYLOAD_BYTES); bounds how many inputs one frame batches. */
  readonly maxPayloadBytes: number;
  /** Names of the scenario's counters (reported even when zero; thresholds read them as `scenario.<name>`). */
  readonly counters: readonly string[];
  /**
   * Join parameters: a query string added to every room URL of this scenario (before the run's
   * own `--query`), e.g. DEV_MODE room options the scenario relies on.
   */
  readonly query?: string;
  /**
   * What to check: thresholds in the threshold language (`scenario.hits>0`, `ack.p99<150`)
   * evaluated on every run of this scenario, in addition to the run's own.
   */
  readonly thresholds?: readonly string[];
  /** Per-player state, created once per simulated player; `periodMs` = time between its inputs. */
  createPlayer(rng: Rng, periodMs: number): S;
  /** Optional: called once when the player's welcome arrives. */
  onWelcome?(player: S, info: WelcomeInfo): void;
  /**
   * Appends the next input payload to `w` (already reset; the generator copies the bytes behind
   * their length prefix). Use the game's own codec from `@tikron/games/schemas` (e.g.
   * `agarInputs.write(w, input)`, a declared input, with an input object kept in the player
   * state). Called once per scheduled input on the hot path: must not allocate.
   */
  writeInput(player: S, rng: Rng, w: BinaryWriter, counters: Record<string, number>): void;
  /**
   * Optional: inspects one event body of a received FRAME (`buf[offset, offset+length)`) and
   * bumps scenario counters, e.g. shot events delivered. Not called when absent.
   */
  onEvent?(player: S, buf: Uint8Array, offset: number, length: number, counters: Record<string, number>): void;
}

/**
 * A turn-based game over the JSON text mode. Players do not send on a fixed rate: each reacts to
 * the state the room sent, acting (after a think time) only when the game lets it, so the
 * generator asks the scenario what to do instead of asking for the next payload.
 */
export interface TextScenario<S = unknown> {
  readonly wire: "json";
  /** CLI name (`--scenario ttt-json`). */
  readonly name: string;
  /** Room kind in the URL path: /rooms/<roomKind>/<roomId>. */
  readonly roomKind: string;
  /** Delay between seeing that it may act and acting (ms) when `thinkMs` is not given. */
  readonly defaultThinkMs: number;
  /** Period of the keepalive ping (ms) when `keepaliveMs` is not given; 0 sends none. */
  readonly defaultKeepaliveMs: number;
  /** Names of the scenario's counters (reported even when zero). */
  readonly counters: readonly string[];
  /** Per-player state, created once per simulated player. */
  createPlayer(rng: Rng): S;
  /** Optional: called once when the player's welcome arrives. */
  onWelcome?(player: S, info: WelcomeInfo): void;
  /**
   * Takes in the `state` of a JSON state message (the player's whole view). Returns false when
   * the view is not the shape the scenario expects (counted as a decode error).
   */
  onState(player: S, state: unknown, counters: Record<string, number>): boolean;
  /** Whether the last view gives the player something to do (a move, a rematch). */
  wantsToAct(player: S): boolean;
  /** The `data` of the input to send now, or undefined when there is nothing to do any more. */
  nextInput(player: S, rng: Rng, counters: Record<string, number>): unknown;
  /** Optional: the room sent this player an ERROR named `name` after it joined. */
  onError?(player: S, name: string, counters: Record<string, number>): void;
}

/** Any scenario the generator can drive, told apart by `wire`. */
export type AnyScenario = Scenario | TextScenario;

/** True for scenarios driven over the JSON text mode. */
export function isTextScenario(s: AnyScenario): s is TextScenario {
  return s.wire === "json";
}

/** A registry entry: a usable scenario, or one that cannot run yet and why. */
export type ScenarioEntry =
  | { readonly name: string; readonly available: true; readonly scenario: AnyScenario }
  | { readonly name: string; readonly available: false; readonly reason: string };

/**
 * Checks a binary scenario's shape and returns it, typed: the entry point of a scenario file
 * (`export default defineScenario({ ... })`). Throws a message naming the bad field.
 */
export function defineScenario<S>(s: Scenario<S>): Scenario<S> {
  const bad = (what: string): never => {
    throw new Error(`scenario ${JSON.stringify((s as { name?: unknown }).name ?? "?")}: ${what}`);
  };
  if (typeof s !== "object" || s === null) bad("must be an object");
  if (typeof s.name !== "string" || !/^[A-Za-z0-9._-]{1,64}$/.test(s.name)) bad("name must be 1-64 characters of A-Z a-z 0-9 . _ -");
  if (typeof s.roomKind !== "string" || s.roomKind.length === 0) bad("roomKind is required");
  if (!(s.defaultRate > 0 && s.defaultRate <= 1000)) bad("defaultRate must be in (0, 1000]");
  if (!Number.isInteger(s.maxPayloadBytes) || s.maxPayloadBytes < 1 || s.maxPayloadBytes > 1024) bad("maxPayloadBytes must be 1..1024");
  if (!Array.isArray(s.counters)) bad("counters must be an array of names");
  if (typeof s.createPlayer !== "function" || typeof s.writeInput !== "function") bad("createPlayer and writeInput are required");
  if (s.thresholds !== undefined && !Array.isArray(s.thresholds)) bad("thresholds must be an array of expressions");
  return s;
}
