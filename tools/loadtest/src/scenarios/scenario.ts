import type { Rng } from "../rng";

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
 * One game's load profile. Adding a game is one file implementing this and one line in the
 * registry: the generator, metrics and reports stay untouched.
 */
export interface Scenario<S = unknown> {
  /** CLI name (`--scenario agar`). */
  readonly name: string;
  /** Room kind in the URL path: /rooms/<roomKind>/<roomId>. */
  readonly roomKind: string;
  /** Inputs per second per player when `--rate` is not given. */
  readonly defaultRate: number;
  /** Upper bound on one payload (≤ MAX_INPUT_PAYLOAD_BYTES); sizes the scratch buffer. */
  readonly maxPayloadBytes: number;
  /** Names of the scenario's counters (reported even when zero). */
  readonly counters: readonly string[];
  /** Per-player state, created once per simulated player; `periodMs` = time between its inputs. */
  createPlayer(rng: Rng, periodMs: number): S;
  /** Optional: called once when the player's welcome arrives. */
  onWelcome?(player: S, info: WelcomeInfo): void;
  /**
   * Writes the next input payload at `offset` of `out` and returns its length. Called once per
   * scheduled input on the hot path: must not allocate.
   */
  writeInput(player: S, rng: Rng, out: DataView, offset: number, counters: Record<string, number>): number;
  /**
   * Optional: inspects one event body of a received FRAME (`buf[offset, offset+length)`) and
   * bumps scenario counters, e.g. shot events delivered. Not called when absent.
   */
  onEvent?(player: S, buf: Uint8Array, offset: number, length: number, counters: Record<string, number>): void;
}

/** A registry entry: a usable scenario, or one that cannot run yet and why. */
export type ScenarioEntry =
  | { readonly name: string; readonly available: true; readonly scenario: Scenario }
  | { readonly name: string; readonly available: false; readonly reason: string };
