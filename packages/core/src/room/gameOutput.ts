/**
 * What a game says to its players besides the state (`GameOutput`): events (`ctx.emit`) queued
 * for the next frame, and notices (`ctx.send` / `ctx.broadcast`) queued for the next flush. Each
 * is encoded once, here, whatever its audience; the seats hold references to the same bytes or
 * text, and the flushers send them (room/flushers.ts).
 */
import {
  FrameWriter,
  MAX_NOTICE_PAYLOAD_CHARS,
  encodeNotice,
  isMessageType,
  writeEvent,
  type EventSchema,
} from "@tikron/protocol";
import type { Dialect, Seat } from "./clientLink";
import type { SeatRegistry } from "./seatRegistry";

/** What the game's output needs from its room. */
export interface GameOutputDeps {
  readonly seats: SeatRegistry;
  /** The dialect every seat of the room speaks. */
  readonly dialect: Dialect;
  /** The schema's declared events (binary rooms), which event objects are encoded with. */
  readonly events: EventSchema | null;
  /** A notice was queued (a room without a tick loop flushes soon, so it goes out). */
  noticeQueued(): void;
}

/**
 * The game's events and notices, from its call to the seats' queues. Bytes of the game's own
 * codec and JSON rooms' values are queued as they are (references: nothing is copied).
 */
export class GameOutput {
  /** Its own writer: a game may emit from inside a room call that is using the room's. */
  private readonly writer = new FrameWriter(256);

  constructor(private readonly d: GameOutputDeps) {}

  /** `ctx.emit`: the event, encoded when it is a declared one, queued for `to` (default: every connected seat). */
  emit(event: unknown, to: Iterable<number> | undefined): void {
    this.deliver(this.eventBody(event), to, eventsOf);
  }

  /** `ctx.send` / `ctx.broadcast`: the notice, checked and encoded once, queued for `to` (default: every connected seat). */
  notice(type: string, data: unknown, to: Iterable<number> | undefined): void {
    if (!isMessageType(type)) throw new RangeError(`notice type ${JSON.stringify(type)} is not 1-32 of A-Z a-z 0-9 _ . : -`);
    const json = JSON.stringify(data ?? null) as string | undefined;
    if (json === undefined) throw new TypeError(`notice ${type}: the payload is not JSON-able`);
    if (json.length > MAX_NOTICE_PAYLOAD_CHARS) throw new RangeError(`notice ${type}: payload of ${json.length} chars exceeds ${MAX_NOTICE_PAYLOAD_CHARS}`);
    // The type matched isMessageType (no quotes or escapes), so splicing it into text is safe.
    const wire = this.d.dialect === "json" ? `{"t":"notice","type":"${type}","data":${json}}` : encodeNotice(this.writer.reset(), type, json).toBytes();
    this.deliver(wire, to, noticesOf);
    this.d.noticeQueued();
  }

  /** What a seat's frame carries for `event`: a declared event's bytes, or the value as given. */
  private eventBody(event: unknown): unknown {
    if (this.d.dialect === "json" || event instanceof Uint8Array) return event;
    const events = this.d.events;
    if (!events) throw new TypeError("this room's schema declares no events: emit bytes, or declare events with defineEvents");
    // A copy: the frame is written at the next flush, the writer is reused before then.
    return writeEvent(this.writer.reset(), events, event as never).toBytes();
  }

  /** Queues `item` on each connected seat of `to` (every connected seat when undefined). */
  private deliver(item: unknown, to: Iterable<number> | undefined, queue: (seat: Seat) => unknown[]): void {
    const { seats } = this.d;
    if (to === undefined) {
      for (const seat of seats.list) if (seat.link) queue(seat).push(item);
      return;
    }
    for (const id of to) {
      const seat = seats.get(id);
      if (seat?.link) queue(seat).push(item);
    }
  }
}

const eventsOf = (seat: Seat): unknown[] => seat.events;
const noticesOf = (seat: Seat): unknown[] => seat.notices;
