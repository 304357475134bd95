/**
 * A still room's sleep (`RoomSleep`): when a tick's flush leaves nothing to do (the game says a
 * tick without inputs would change nothing, `Game.still`; every client holds all it can see;
 * nothing arrived or happened meanwhile), the tick timer stops until the next idle beat or due
 * checkpoint, and anything from outside (a hello, inputs, a game message, a leave, a dropped
 * socket, a spectator, an operator's action, the game's own context calls) wakes it on its grid.
 *
 * Tick indexes pass with time while asleep: the skipped ticks were no-ops by the stillness
 * contract, so the tick run next, every ack and frame after it, a recording and its replay carry
 * the indexes an awake room would have. The skipped flushes count too (the flusher's index that
 * phases its tiers, the checkpoint cadence's flush count), so a room that slept sends what the
 * same room kept awake sends, frame for frame (`packages/core/test/roomSleep.property.test.ts`).
 * Periodic checkpoints come due as in an awake room, but once one was taken since the last
 * change, the rest of the sleep asks for none (they would save the same world) and does not
 * wake for them: an idle room costs its host no storage writes.
 */
import { flushEveryTicks } from "@tikron/protocol";
import type { Clock } from "../clock";
import type { Game } from "../game";
import type { RoomOptions } from "../roomOptions";
import type { SleepStats } from "../roomStats";
import type { TickScheduler } from "../tickScheduler";
import type { CheckpointCadence } from "./checkpointCadence";
import type { Flusher } from "./flushers";
import { nextIdleBeat } from "./idleBeat";

/** What a room's sleep reads of the room. */
export interface SleepDeps {
  readonly game: Game;
  readonly clock: Clock;
  readonly options: RoomOptions;
  readonly scheduler: TickScheduler;
  readonly flusher: Flusher;
  readonly cadence: CheckpointCadence;
  /** Whether anything but the game keeps the room awake now: bots, spectators, deferred work. */
  busy(): boolean;
}

/** One room's sleep (see the module comment). */
export class RoomSleep {
  /** Sleeping is possible at all: the game declares stillness and the room's flusher tells quiet flushes. */
  readonly possible: boolean;
  #asleep = false;
  #since = 0;
  #sleeps = 0;
  #wakes = 0;
  #beats = 0;
  #asleepMs = 0;
  /** Something from outside happened since the current tick began. */
  #stirred = false;
  /** The last tick whose skipped flushes were counted. */
  #counted = 0;
  /** Something may have changed since the last periodic checkpoint (a tick ran awake, or the room was stirred). */
  #unkept = true;

  constructor(private readonly d: SleepDeps) {
    this.possible = typeof d.game.still === "function" && d.flusher.quiet !== undefined && d.flusher.skipFlushes !== undefined;
  }

  /** True while asleep. */
  get asleep(): boolean {
    return this.#asleep;
  }

  /**
   * Something from outside reached the room: no sleep begins before the next tick has seen it,
   * and a sleeping loop wakes on its grid now. True when it woke (the room's tick index moved to
   * the scheduler's: the ticks passed meanwhile count as run).
   */
  stir(): boolean {
    this.#stirred = true;
    this.#unkept = true;
    if (!this.#asleep) return false;
    this.#end();
    this.d.scheduler.wake();
    const k = this.d.scheduler.tickIndex;
    this.#skip(k);
    return true;
  }

  /**
   * Tick `k` begins: counts the flushes skipped before it, and forgets what stirred the room
   * before it (this tick takes it in).
   */
  tickBegins(k: number): void {
    // A loop started again (the room emptied and filled) counts from 0.
    if (k <= this.#counted) this.#counted = 0;
    if (this.#asleep) this.#beats++;
    else this.#unkept = true;
    this.#skip(k - 1);
    this.#counted = k;
    this.#stirred = false;
  }

  /**
   * The flush of tick `k` ended: sleeps until the next idle beat or due checkpoint when nothing
   * is left to do, else ends the sleep (if asleep).
   */
  flushEnded(k: number): void {
    if (!this.possible) return;
    const d = this.d;
    const s = d.scheduler;
    const every = this.#everyTicks();
    // Not after a flush finished late (by the next tick) or while the loop is stopped.
    if (!(s.running && s.tickIndex === k && !this.#stirred && d.flusher.quiet === true && !d.cadence.soonPending && !d.busy() && d.game.still!() === true)) {
      if (this.#asleep) this.#end();
      return;
    }
    const { tickMs, idleFrameMs, checkpointMs } = d.options;
    // A checkpoint taken since the last change holds the world the room sleeps in: no wake for the next.
    const checkpoint = this.#unkept ? this.#checkpointTick(k, every) : Infinity;
    const until = Math.min(nextIdleBeat(k, tickMs, every, idleFrameMs), checkpoint);
    // The next tick is a beat or a checkpoint's already: it runs as one of the sleep's own.
    if (until <= k + 1) return;
    s.sleepUntil(until);
    if (this.#asleep) return;
    this.#asleep = true;
    this.#sleeps++;
    this.#since = d.clock.now();
  }

  /**
   * A periodic checkpoint came due: whether the host is asked for it. Not while asleep after one
   * was taken since the last change (the world it would save is the one already saved).
   */
  keepDue(): boolean {
    if (this.#asleep && !this.#unkept) return false;
    this.#unkept = false;
    return true;
  }

  /** The `sleep` section of `tk:stats` (undefined for a room that never sleeps). */
  stats(): SleepStats | undefined {
    if (!this.possible) return undefined;
    const now = this.d.clock.now();
    return { asleep: this.#asleep, sleeps: this.#sleeps, wakes: this.#wakes, beats: this.#beats, asleepMs: this.#asleepMs + (this.#asleep ? now - this.#since : 0) };
  }

  /** The flush tick after `k` where the next periodic checkpoint comes due, by the count of flushes or on the clock (as `CheckpointCadence.flushEnded` decides). */
  #checkpointTick(k: number, every: number): number {
    const { cadence, scheduler: s, options } = this.d;
    const { tickMs, checkpointMs } = options;
    if (checkpointMs <= 0) return Infinity;
    const byCount = k + cadence.flushesUntilDue(checkpointMs, every * tickMs) * every;
    // The first flush past lastAt + checkpointMs on the grid (a loop stopped and started again leaves lastAt far behind).
    const from = Math.floor((cadence.lastAt + checkpointMs - s.dueAt(0)) / tickMs / every) * every;
    let j = Number.isFinite(from) ? Math.max(k + every, from) : k + every;
    while (j < byCount && !cadence.dueOnClock(s.dueAt(j), checkpointMs)) j += every;
    return Math.min(j, byCount);
  }

  /** Ticks between two flushes now (the room's rule: its options as `setRates` leaves them). */
  #everyTicks(): number {
    const o = this.d.options;
    return flushEveryTicks(o.syncIntervalMs, o.tickMs);
  }

  /** The sleep ends (woken, or a tick of its own found the room not still). */
  #end(): void {
    this.#asleep = false;
    this.#wakes++;
    this.#asleepMs += this.d.clock.now() - this.#since;
  }

  /** The flushes of the ticks after the last counted, up to `upTo`, were skipped: the flusher and the cadence count them; `upTo` is counted then. */
  #skip(upTo: number): void {
    if (upTo <= this.#counted) return;
    const every = this.#everyTicks();
    const last = Math.floor(upTo / every);
    const n = last - Math.floor(this.#counted / every);
    this.#counted = upTo;
    if (n <= 0) return;
    this.d.flusher.skipFlushes!(n);
    const { tickMs, checkpointMs } = this.d.options;
    this.d.cadence.skipped(n, checkpointMs, every * tickMs, this.d.scheduler.dueAt(last * every));
  }
}
