/**
 * The transport seam between a simulation and a relay: each side sees only a port that carries
 * bytes one way, and hands the other side's port the bytes it receives. What carries them
 * later (an RPC, an internal WebSocket between objects) implements {@link RelayPort}.
 */

/** One direction of the link between a simulation and a relay. */
export interface RelayPort {
  /**
   * Sends one message. `data` may be a view of the sender's reused writer, valid only during
   * the call: a port that keeps it past the call (queues it) must copy it.
   */
  send(data: Uint8Array): void;
}

/** Where a port delivers: the receiving side's handler. */
export type RelayReceiver = (data: Uint8Array) => void;

/**
 * An in-memory port for tests: a copy of every message is queued and delivered on
 * {@link deliver} (or at once with `immediate`), in order, so a test decides when messages
 * cross, as a network would.
 */
export class MemoryPort implements RelayPort {
  private readonly queue: Uint8Array[] = [];
  /** Messages sent so far. */
  messages = 0;
  /** Their bytes. */
  bytes = 0;
  /** While false, messages wait in the queue (a link that is down or slow). */
  immediate: boolean;
  private receiver: RelayReceiver | null = null;

  constructor(immediate = true) {
    this.immediate = immediate;
  }

  /** The side that receives what this port carries. */
  connect(receiver: RelayReceiver): void {
    this.receiver = receiver;
  }

  send(data: Uint8Array): void {
    this.messages++;
    this.bytes += data.byteLength;
    this.queue.push(data.slice());
    if (this.immediate) this.deliver();
  }

  /** Delivers every queued message, in order (messages sent meanwhile too). */
  deliver(): void {
    const r = this.receiver;
    if (r === null) return;
    while (this.queue.length > 0) r(this.queue.shift()!);
  }

  /** Drops every queued message (a link that lost them). */
  drop(): number {
    const n = this.queue.length;
    this.queue.length = 0;
    return n;
  }
}
