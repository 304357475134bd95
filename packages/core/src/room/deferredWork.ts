/**
 * A room's deferred work (`DeferredWork`): the game's `ctx.defer`, the one way its effects on
 * the host's bindings (a D1 write, a KV read) run, off the tick path, watched and counted.
 */
import { RoomStats, type DeferredCounts } from "../roomStats";

/** Most pieces of a room's deferred work pending at once; `defer` refuses more. */
export const MAX_PENDING_DEFERRED = 64;

/**
 * Runs and watches a room's deferred work: a function is called once the current turn is done
 * (after the tick or message that deferred it, flush included), a promise is watched from now.
 * Each piece goes to the host (`keep`: Cloudflare hands it to `waitUntil`) already settled-safe:
 * a failure is logged and counted here, never rethrown.
 */
export class DeferredWork {
  /** What became of the work so far. */
  readonly counts: DeferredCounts = { started: 0, done: 0, failed: 0, refused: 0 };
  readonly #pending = new Set<Promise<void>>();

  constructor(
    /** How the room names itself in logs (`kind:roomId`). */
    private readonly name: string,
    /** The room's error counters (`errors.deferred_failed`). */
    private readonly errors: Record<string, number>,
    /** The host keeps its runtime alive until the work settles (a hook; may be absent). */
    private readonly keep: ((work: Promise<unknown>) => void) | undefined,
  ) {}

  /** Work not yet settled. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Starts `work` (see the class); false, running nothing, while too much is pending. */
  run(work: Promise<unknown> | (() => Promise<unknown>), label = "work"): boolean {
    if (this.#pending.size >= MAX_PENDING_DEFERRED) {
      this.counts.refused++;
      if (this.counts.refused === 1 || this.counts.refused % 100 === 0) {
        console.error(`[room ${this.name}] deferred ${label} refused: ${MAX_PENDING_DEFERRED} pieces of work are still pending (${this.counts.refused} refused so far)`);
      }
      return false;
    }
    this.counts.started++;
    const started = typeof work === "function" ? Promise.resolve().then(work) : Promise.resolve(work);
    const watched: Promise<void> = started.then(
      () => {
        this.counts.done++;
      },
      (e: unknown) => {
        this.counts.failed++;
        RoomStats.bump(this.errors, "deferred_failed");
        console.error(`[room ${this.name}] deferred ${label} failed:`, e instanceof Error ? e.message : e);
      },
    );
    const settled = watched.finally(() => this.#pending.delete(settled));
    this.#pending.add(settled);
    this.keep?.(settled);
    return true;
  }

  /** Resolves once no work is pending (work started meanwhile is waited for too). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }
}
