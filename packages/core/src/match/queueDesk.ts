import { isMatchError, matchError, type MatchError } from "@tikron/protocol";
import type { Clock, TimerHandle } from "../clock";
import type { Caller, HeldSeats } from "./seats";
import { MatchQueue, seatsOf, type QueueEntry } from "./matchQueue";
import type { QueueSpec } from "./matchmakingSpec";

/** How often the queue is re-grouped while anyone waits (windows widen with time). */
const QUEUE_TICK_MS = 250;

/** What the queue asks of its matchmaker: a room for a group, and the count of refusals. */
export interface QueueSeating {
  /** A new private room with a seat for every caller, all or none. */
  seatGroup(callers: Caller[]): Promise<HeldSeats | MatchError>;
  /** Counts a refusal by its code. */
  refuse(err: MatchError): void;
  /** A group was seated (stats). */
  grouped(): void;
}

/**
 * The queue of one matchmaker at work: the entries waiting (players, and parties as one entry of
 * their members), each one's answer, the timer that groups them again as their rating windows
 * widen, and the seating of every group the {@link MatchQueue} forms, in one room for the whole
 * group, each entry answered with its own seats.
 */
export class QueueDesk {
  private readonly queue: MatchQueue;
  private readonly answers = new Map<string, (answer: HeldSeats | MatchError) => void>();
  private timer: TimerHandle | null = null;
  private disposed = false;

  constructor(
    private readonly spec: Required<QueueSpec>,
    private readonly clock: Clock,
    private readonly seating: QueueSeating,
  ) {
    this.queue = new MatchQueue(spec);
  }

  /** Entries waiting. */
  get size(): number {
    return this.queue.size;
  }

  /** The entry waiting under `queueId`, if any. */
  get(queueId: string): QueueEntry | undefined {
    return this.queue.get(queueId);
  }

  /**
   * Puts an entry in the queue (one identity waits once: an older wait of it is answered
   * `cancelled`); its seats once its group is seated, or `queue_timeout`, `cancelled`,
   * `unavailable`.
   */
  enqueue(entry: QueueEntry): Promise<HeldSeats | MatchError> {
    return new Promise((resolve) => {
      const replaced = this.queue.add(entry);
      if (replaced) this.settle(replaced.queueId, matchError("cancelled", "replaced by a newer queue request"));
      this.answers.set(entry.queueId, resolve);
      this.group();
    });
  }

  /** Takes a waiting entry out: it is answered `cancelled`, with `reason`. */
  dequeue(queueId: string, reason: string): void {
    this.queue.remove(queueId);
    this.settle(queueId, matchError("cancelled", reason));
  }

  /** Stops the timer; every entry waiting is answered `unavailable`. */
  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
    for (const id of [...this.answers.keys()]) {
      this.queue.remove(id);
      this.settle(id, matchError("unavailable", "the matchmaker is shutting down", 1000));
    }
  }

  private group(): void {
    if (this.disposed) return;
    const now = this.clock.now();
    for (const e of this.queue.takeExpired(now)) this.settle(e.queueId, matchError("queue_timeout", `no match within ${this.spec.timeoutMs} ms`));
    for (const group of this.queue.takeGroups(now)) void this.seat(group);
    if (this.queue.size > 0 && this.timer === null) {
      this.timer = this.clock.setTimer(() => {
        this.timer = null;
        this.group();
      }, QUEUE_TICK_MS);
    }
  }

  /** One room for a whole group, every seat reserved in one request; each entry gets its own seats. */
  private async seat(group: QueueEntry[]): Promise<void> {
    const callers = group.flatMap((e): Caller[] => (e.seats ?? [e]).map((s) => ({ identity: s.identity, verified: true, ...(s.claims ? { claims: s.claims } : {}) })));
    const held = await this.seating.seatGroup(callers);
    if (isMatchError(held)) {
      for (const e of group) this.settle(e.queueId, held.code === "unavailable" ? held : matchError("unavailable", held.reason, 500));
      return;
    }
    this.seating.grouped();
    let at = 0;
    for (const e of group) {
      const n = seatsOf(e);
      this.settle(e.queueId, { ...held, tokens: held.tokens.slice(at, at + n), reservationIds: held.reservationIds.slice(at, at + n), group: callers.length });
      at += n;
    }
  }

  private settle(queueId: string, answer: HeldSeats | MatchError): void {
    const settle = this.answers.get(queueId);
    if (!settle) return;
    this.answers.delete(queueId);
    if (isMatchError(answer)) this.seating.refuse(answer);
    settle(answer);
  }
}
