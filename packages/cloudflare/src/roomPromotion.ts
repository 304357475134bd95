/**
 * A room's relay plan and its promotion (AGENTS.md "Relays", "Promotion"): how the current room
 * is relayed by the rule (`relaysFor`), and, when that is from a threshold (`K@N`), the single
 * room made again as a relayed one on the turn after the seat that reaches it. Apart from
 * `RoomObject` because when a room is promoted and in what order its parts are handed over is
 * one rule, read in one place; how the object makes its room again is the object's.
 */
import { promotionDue, relaysAtMaking, relaysFor, SINGLE_ROOM, type BusyMeter, type GameDefinition, type HostedRoom, type RelayPlan, type RelaysEnv } from "@tikron/core";
import { CloseCode } from "@tikron/protocol";
import type { RoomRequestMeta } from "./roomRequest";

/** What a promotion asks of the room's object. */
export interface PromotedObject {
  /** The room the object hosts now (null: none made, or it was let go). */
  current(): HostedRoom | null;
  /** Whether the room it hosts is relayed (a simulation). */
  relayed(): boolean;
  /** Writes the room's checkpoint and store now (`RoomKeeping.saveCheckpoint`). */
  saveCheckpoint(): void;
  /**
   * Makes the room again in place of `old`, relayed over `relays`, from `old`'s checkpoint, bans,
   * overrides and store, and returns it; throws, with `old` still in place and untouched, when
   * its game cannot be relayed.
   */
  remakeRelayed(old: HostedRoom, relays: number): HostedRoom | null;
}

/** The relay plan of a room's object's current room, and its promotion when the plan says so. */
export class RoomPromotion {
  /** How the current room is relayed by the rule (`relaysFor`): a threshold makes it promote itself. */
  plan: RelayPlan = SINGLE_ROOM;
  /** A promotion asked for by a seat and not run yet. */
  private promotion: ReturnType<typeof setTimeout> | null = null;

  /** `busy` meters the promotion's own turn, an entry of the object like any other. */
  constructor(
    private readonly object: PromotedObject,
    private readonly busy: BusyMeter,
  ) {}

  /**
   * A new room's plan, and the relays it is made over (0: single). Relayed by the same rule the
   * gateway routes by, so a room the matchmaker makes (no join URL in sight) is a simulation when
   * its kind is relayed from the start, and promotes itself at its threshold; a checkpoint of a
   * relayed room (a promoted one too) comes back relayed (`stored`); a promotion names its own
   * (`promoteTo`).
   */
  newRoom(meta: RoomRequestMeta, def: GameDefinition, env: unknown, promoteTo: number, stored: number): number {
    const plan = relaysFor(meta.kind, def, env as RelaysEnv | undefined, meta.options);
    this.plan = plan;
    return relaysAtMaking(plan, promoteTo, stored);
  }

  /**
   * A seat was taken: a room whose seats reach its plan's threshold is promoted, on a turn of
   * its own (the seat's welcome, sent in this one, goes out before its socket is closed).
   */
  promoteWhenDue(): void {
    const room = this.object.current();
    if (!room || this.promotion !== null || !promotionDue(this.plan, this.object.relayed(), room.seatCount)) return;
    this.promotion = setTimeout(
      this.busy.wrap(() => {
        this.promotion = null;
        if (this.object.current() === room && promotionDue(this.plan, this.object.relayed(), room.seatCount)) this.promote(room);
      }, "timer"),
      0,
    );
  }

  /**
   * Promotes the single room to a relayed one, as a restart would bring it back, without one:
   * its checkpoint (seats, tokens, last seqs, listing, the world when periodic checkpoints are
   * on) is restored into a simulation made in its place with the same overrides, store, bans and
   * pending seat reservations; the old room is handed over (its sockets closed with
   * `going_away`, which the SDK answers by reconnecting at once with its token, its timers
   * stopped, nothing freed or disposed), and the clients come back through the gateway, which
   * the room's object now answers with `relayedAnswer`, via relays into their held seats. The new
   * room's epoch is new, as after a restart. A relayed room stays relayed while it lives.
   */
  private promote(old: HostedRoom): void {
    const relays = this.plan.relays;
    const seats = old.seatCount;
    const reserved = old.pendingReservations();
    let made: HostedRoom | null;
    try {
      made = this.object.remakeRelayed(old, relays);
    } catch (e) {
      // A game that cannot be relayed (its sync names no world): the single room goes on as it
      // was, and is not promoted again.
      this.plan = SINGLE_ROOM;
      console.error(`[room ${old.kind}:${old.roomId}] not promoted: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    made?.holdReservations(reserved);
    old.handOver(CloseCode.going_away, "the room is now relayed; reconnect");
    this.object.saveCheckpoint();
    console.log(`[room ${old.kind}:${old.roomId}] promoted at ${seats} seats: relayed over ${relays} relays`);
  }
}
