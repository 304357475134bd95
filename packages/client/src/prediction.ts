/** How a {@link Predictor} applies inputs and measures its own mistakes. */
export interface PredictorOptions<S, I> {
  /**
   * The game's input rule, the same one the server runs. Must not mutate `state` unless
   * {@link clone} is given (then it may mutate and return its argument).
   */
  applyInput: (state: S, input: I) => S;
  /**
   * Copies a state. When given, the predictor clones every state it is handed (the server's at
   * reconciliation, the initial one, the one given to `reset`) before applying inputs to it, so
   * `applyInput` may work in place and the caller's (or the decoder's) state is never touched.
   */
  clone?: (state: S) => S;
  /**
   * Distance between two states (e.g. position distance of the local player). Reported as the
   * prediction error: how far the shown prediction was from the reconciled one. Default: 0.
   */
  error?: (predicted: S, reconciled: S) => number;
}

/**
 * Unacknowledged inputs kept: when the server stops acking, the oldest are dropped rather than
 * growing without bound (a reconnect resyncs anyway).
 */
export const MAX_PENDING_INPUTS = 256;

/**
 * Client-side prediction with server reconciliation.
 *
 * Local inputs are applied at once ({@link push}) so the player's own avatar responds without
 * waiting a round trip; each is remembered under its sequence number. When a frame arrives
 * with an ack and the authoritative state ({@link reconcile}), inputs up to the ack are dropped
 * (the server state already contains them) and the rest are replayed over the server state.
 * With a deterministic `applyInput` that matches the server's, the replayed state equals what
 * was predicted and the prediction error is zero.
 */
export class Predictor<S, I> {
  readonly #options: PredictorOptions<S, I>;
  // Unacknowledged inputs and their sequence numbers, oldest first. The list stays short (about
  // a round trip of inputs), so dropping from its front is cheap.
  readonly #seqs: number[] = [];
  readonly #inputs: I[] = [];

  #predicted: S | undefined;
  #acked = -1;
  #lastErr = 0;
  #maxErr = 0;

  constructor(options: PredictorOptions<S, I>, initialState?: S) {
    this.#options = options;
    this.reset(-1, initialState);
  }

  /** The predicted state (server state plus unacked inputs); undefined before any state. */
  get state(): S | undefined {
    return this.#predicted;
  }

  /** Inputs sent but not yet acknowledged. */
  get pending(): number {
    return this.#seqs.length;
  }

  /** Highest acknowledged sequence number seen (-1 before any). */
  get lastAck(): number {
    return this.#acked;
  }

  /** Prediction error measured at the latest reconciliation. */
  get lastError(): number {
    return this.#lastErr;
  }

  /** Largest prediction error seen since construction. */
  get maxError(): number {
    return this.#maxErr;
  }

  /**
   * Applies a local input at once and remembers it under `seq` (the number `sendInput`
   * returned). Inputs that were not sent (seq < 0) are ignored: the server will never apply
   * them. So is a seq not above both the ack and the newest pending one, or not a number: the
   * server applies each number once and in order, and acks drop pending inputs oldest first.
   */
  push(seq: number, input: I): S | undefined {
    if (seq < 0 || !(seq > Math.max(this.#acked, this.#seqs.at(-1) ?? -1))) return this.#predicted;
    if (this.#seqs.length === MAX_PENDING_INPUTS) this.#dropOldest();
    this.#seqs.push(seq);
    this.#inputs.push(input);
    if (this.#predicted !== undefined) this.#predicted = this.#options.applyInput(this.#predicted, input);
    return this.#predicted;
  }

  /**
   * Takes the authoritative state of a frame and the highest input the server processed for it
   * (a frame without ack keeps the previous one), drops acknowledged inputs, replays the rest,
   * and returns the new predicted state.
   */
  reconcile(serverState: S, ackSeq: number = this.#acked): S {
    const { applyInput, clone, error } = this.#options;
    if (ackSeq > this.#acked) this.#acked = ackSeq;
    while (this.#seqs[0] <= this.#acked) this.#dropOldest();
    let s = clone ? clone(serverState) : serverState;
    for (let k = 0; k < this.#inputs.length; k++) s = applyInput(s, this.#inputs[k]);
    if (this.#predicted !== undefined && error) {
      this.#lastErr = error(this.#predicted, s);
      if (this.#lastErr > this.#maxErr) this.#maxErr = this.#lastErr;
    }
    return (this.#predicted = s);
  }

  /**
   * Forgets every pending input, e.g. after a reconnect: inputs the server did not apply before
   * the drop are stale and must not be replayed. `lastSeq` (the welcome's) becomes the ack.
   * The next {@link reconcile} supplies the state.
   */
  reset(lastSeq = -1, state?: S): void {
    const clone = this.#options.clone;
    this.#seqs.length = this.#inputs.length = 0;
    this.#acked = lastSeq;
    this.#predicted = clone && state !== undefined ? clone(state) : state;
  }

  #dropOldest(): void {
    this.#seqs.shift();
    this.#inputs.shift();
  }
}
