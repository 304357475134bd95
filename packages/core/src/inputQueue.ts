/** One queued input, waiting for the next tick. Entries are pooled and reused. */
export interface QueuedInput<Input> {
  /** The seat that sent it. */
  playerId: number;
  /** Its sequence number. */
  seq: number;
  /** The input as the game decoded it. */
  input: Input;
  /** Room time at which the input arrived (stamped on receipt, not at drain). */
  receivedAt: number;
}

/**
 * Tick-aligned input queue: inputs wait for the next tick and are drained in arrival order, so
 * every tick simulates one consistent batch and their acks ride out together in the next flush.
 * Entry objects are pooled: steady state allocates nothing.
 */
export class InputQueue<Input> {
  private items: QueuedInput<Input>[] = [];
  private len = 0;

  /** Inputs waiting. */
  get length(): number {
    return this.len;
  }

  /** Queues one decoded input (reuses pooled entries). */
  push(playerId: number, seq: number, input: Input, receivedAt: number): void {
    let e = this.items[this.len];
    if (e === undefined) {
      e = { playerId, seq, input, receivedAt };
      this.items.push(e);
    } else {
      e.playerId = playerId;
      e.seq = seq;
      e.input = input;
      e.receivedAt = receivedAt;
    }
    this.len++;
  }

  /** Calls `fn` for every queued input in arrival order, then empties the queue. */
  drain(fn: (e: QueuedInput<Input>) => void): number {
    const n = this.len;
    // Reset first: inputs that arrive during fn (re-entrancy) belong to the next tick.
    this.len = 0;
    for (let i = 0; i < n; i++) {
      const e = this.items[i]!;
      fn(e);
      e.input = undefined as Input; // release the payload for GC
    }
    return n;
  }

  /** Drops every queued input of one player (its seat was freed). Returns how many it dropped. */
  dropPlayer(playerId: number): number {
    const before = this.len;
    let j = 0;
    for (let i = 0; i < this.len; i++) {
      const e = this.items[i]!;
      if (e.playerId === playerId) continue;
      if (i !== j) {
        const other = this.items[j]!;
        this.items[j] = e;
        this.items[i] = other;
      }
      j++;
    }
    this.len = j;
    return before - j;
  }
}
