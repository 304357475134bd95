import { MAX_INPUTS_PER_FRAME, type InputEntry } from "@tikron/protocol";

/**
 * Input batching (`batchInputsMs`): the first input after a quiet interval goes out at once,
 * later ones wait and leave together in one INPUT frame, at most once per interval. Each
 * incoming WebSocket message is billed and counts against the room object's request rate, so a
 * client sending faster than the room ticks costs fewer messages this way; the room drains per
 * tick anyway, so an interval up to the tick adds little latency.
 *
 * Batched inputs are never replayed after a drop: they were predicted against a state that has
 * moved on, so {@link drop} discards them.
 */
export class InputBatcher {
  readonly #batch: InputEntry[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  #lastSentAt = -Infinity;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #sendBatch: (inputs: readonly InputEntry[]) => boolean;

  /**
   * `intervalMs` is the longest wait before queued inputs leave (> 0); `sendBatch` sends one
   * INPUT frame and returns false when it could not (socket not open, not joined).
   */
  constructor(intervalMs: number, now: () => number, sendBatch: (inputs: readonly InputEntry[]) => boolean) {
    this.#intervalMs = intervalMs;
    this.#now = now;
    this.#sendBatch = sendBatch;
  }

  /** Queues input `seq` (the payload is copied: callers may reuse their buffer) and sends when due. */
  add(seq: number, payload: Uint8Array): void {
    this.#batch.push({ seq, payload: payload.slice() });
    const sinceLast = this.#now() - this.#lastSentAt;
    if (this.#batch.length >= MAX_INPUTS_PER_FRAME || sinceLast >= this.#intervalMs) this.flush();
    else this.#timer ??= setTimeout(this.flush, this.#intervalMs - sinceLast);
  }

  /** Sends whatever is queued now; what cannot be sent is dropped, never kept for later. */
  readonly flush = (): void => {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#batch.length === 0) return;
    if (this.#sendBatch(this.#batch)) this.#lastSentAt = this.#now();
    this.#batch.length = 0;
  };

  /** Discards queued inputs unsent (a (re)join: they belong to the previous seat's timeline). */
  drop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#batch.length = 0;
  }
}
