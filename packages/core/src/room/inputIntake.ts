/**
 * The room's input intake (`InputIntake`): a socket's inputs checked, decoded by the game,
 * queued for the tick or applied at once, refusals gathered into one error per frame.
 */
import { CloseCode, type ErrorName } from "@tikron/protocol";
import { isRejection, type InputRejection } from "../game";
import type { InputQueue, QueuedInput } from "../inputQueue";
import { RoomStats } from "../roomStats";
import type { ClientLink, Seat } from "./clientLink";
import type { InboundInput } from "./inbound";
import type { RoomParts, RoomSockets } from "./roomSockets";
import type { SeatRegistry } from "./seatRegistry";

/** What the intake needs from its room. */
export interface InputIntakeDeps extends RoomParts {
  readonly queue: InputQueue<unknown>;
  readonly seats: SeatRegistry;
  readonly sockets: RoomSockets;
  /** Inputs were applied on arrival: the seat hears its ack now (alone, or in a flush at once). */
  ackNow(seat: Seat): void;
}

/**
 * Inputs from their arrival to the game. On arrival each input's seq must be above the seat's
 * last one (and at most `maxSeqStep` above it) and the game's `decodeInput` must take its
 * payload; then it waits in the {@link InputQueue} for the next tick ({@link drain}) or, with
 * `queueInputs` off and in turn-based rooms, is applied at once. Every applied or refused input
 * advances the seat's ack. Refusals are gathered per seat and answered with one error frame per
 * frame (or per tick), each charged to the socket's refusal budget.
 */
export class InputIntake {
  /** Some seat has refusals to report (see {@link reportRefusals}). */
  private refusalsPending = false;
  /** Bound once: the queue's drain calls it per input, with no closure per tick. */
  private readonly applyQueued = (e: QueuedInput<unknown>): void => {
    const seat = this.d.seats.get(e.playerId);
    if (seat) this.apply(seat, e.seq, e.input, e.receivedAt);
  };

  constructor(private readonly d: InputIntakeDeps) {}

  /** Takes a socket's inputs `entries[0, count)` (the array may be a reused scratch longer than `count`). */
  receive(link: ClientLink, entries: readonly InboundInput[], count: number, now: number): void {
    const seat = link.seat;
    if (!seat) return this.d.sockets.protocolError(link, "not_joined", "input before hello");
    const { game, options, stats } = this.d;
    this.d.recorder?.inputs(seat.playerId, entries, count, now);
    const queued = game.ticking && options.queueInputs;
    let appliedNow = false;
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!;
      stats.inputsReceived++;
      if (entry.seq <= seat.lastReceivedSeq) {
        this.countRejected("stale_seq");
        this.noteRefusal(seat, "bad_input", "seq is not above the last one");
        continue;
      }
      // A bounded step: a seq that leaps to 2^32-1 would leave the seat nowhere to go.
      if (entry.seq - seat.lastReceivedSeq > options.maxSeqStep) {
        this.countRejected("seq_jump");
        this.noteRefusal(seat, "bad_input", `seq jumps more than ${options.maxSeqStep} above the last one`);
        continue;
      }
      seat.lastReceivedSeq = entry.seq;
      const decoded = game.decodeInput(entry.payload);
      if (isRejection(decoded)) {
        this.rejected(seat, entry.seq, decoded);
        appliedNow = true;
        continue;
      }
      if (queued) {
        this.d.queue.push(seat.playerId, entry.seq, decoded, now);
      } else {
        this.apply(seat, entry.seq, decoded, now);
        appliedNow = true;
      }
    }
    if (appliedNow && !queued) this.d.ackNow(seat);
    if (seat.refusedCount > 0) this.reportRefusals(seat);
  }

  /** At the start of a tick: applies the queued inputs in arrival order, then reports refusals. */
  drain(): void {
    this.d.queue.drain(this.applyQueued);
    if (!this.refusalsPending) return;
    this.refusalsPending = false;
    const list = this.d.seats.list;
    for (let i = 0; i < list.length; i++) this.reportRefusals(list[i]!);
  }

  /** Remembers a refused input; the seat hears of all of them in one error frame. */
  private noteRefusal(seat: Seat, name: ErrorName, reason: string): void {
    if (seat.refusedCount++ === 0) {
      seat.refusedName = name;
      seat.refusedReason = reason;
    }
    this.refusalsPending = true;
  }

  /**
   * One error frame for every input refused since the last one (the first refusal's code, the
   * count in the reason), and one charge against the socket's refusal budget: refused inputs
   * cost the room a decode each, so a client that keeps sending them is kicked (4010) once
   * the budget (`rejectedFramesPerSec`, `rejectedFramesBurst`) runs out.
   */
  private reportRefusals(seat: Seat): void {
    const n = seat.refusedCount;
    if (n === 0) return;
    seat.refusedCount = 0;
    const link = seat.link;
    if (!link || link.closed) return;
    const { sockets, stats } = this.d;
    if (!link.rejectBucket.take(this.d.clock.now())) {
      RoomStats.bump(stats.errors, "too_many_refusals");
      sockets.close(link, CloseCode.too_many_errors, "too many refused inputs");
      return;
    }
    const reason = n === 1 ? seat.refusedReason : `${n} inputs refused; first: ${seat.refusedReason}`;
    sockets.sendError(link, seat.refusedName as ErrorName, reason);
  }

  private apply(seat: Seat, seq: number, input: unknown, receivedAt: number): void {
    let result: void | InputRejection;
    try {
      result = this.d.game.applyInput(seat.playerId, input, receivedAt - this.d.epoch);
    } catch (e) {
      RoomStats.bump(this.d.stats.errors, "internal");
      console.error(`[room ${this.d.kind}:${this.d.roomId}] applyInput error`, e);
      result = { rejected: true, code: "bad_input", reason: "input could not be applied" };
    }
    if (result && isRejection(result)) return this.rejected(seat, seq, result);
    this.d.stats.inputsProcessed++;
    if (seq > seat.lastProcessedSeq) seat.lastProcessedSeq = seq;
  }

  private rejected(seat: Seat, seq: number, r: InputRejection): void {
    this.countRejected(r.code);
    // A refused input is still answered by the ack, so the client stops predicting it.
    if (seq > seat.lastProcessedSeq) seat.lastProcessedSeq = seq;
    this.noteRefusal(seat, r.code, r.reason);
  }

  private countRejected(code: string): void {
    this.d.stats.inputsRejected++;
    RoomStats.bump(this.d.stats.rejectedByCode, code);
  }
}
