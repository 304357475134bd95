/**
 * A room's relay plan and its promotion (AGENTS.md "Relays", "Promotion"): how the current room
 * is relayed by the rule (`relaysFor`), and, when that is from a threshold (`K@N`), the single
 * room made again as a relayed one on the turn after the seat that reaches it. The steps and
 * their order are the core's, on the core `Clock`; how a host makes a room again (its storage,
 * its sockets) stays the host's ({@link PromotionHost.remake}).
 */
import { CloseCode } from "@tikron/protocol";
import type { Clock, TimerHandle } from "../clock";
import type { GameDefinition } from "../gameDefinition";
import type { HostedRoom, KeepableRoom } from "../hostedRoom";
import { promotionDue, relaysAtMaking, relaysFor, SINGLE_ROOM, type RelayPlan, type RelaysEnv } from "./relayPlan";

/** What a promotion reads of the room it replaces, and hands to the room made in its place. */
export type PromotedRoom = Pick<HostedRoom, "kind" | "roomId" | "seatCount"> & Pick<KeepableRoom, "pendingReservations" | "holdReservations" | "handOver">;

/** What a promotion asks of the room's host. */
export interface PromotionHost<R extends PromotedRoom = PromotedRoom> {
  /** The room the host holds now (null: none made, or it was let go). */
  current(): R | null;
  /** Whether the room it holds is relayed (a simulation). */
  relayed(): boolean;
  /** Writes the room's checkpoint and store now. */
  saveCheckpoint(): void;
  /**
   * Makes the room again in place of `old`, relayed over `relays`, from `old`'s checkpoint, bans,
   * overrides and store, and returns it; throws, with `old` still in place and untouched, when
   * its game cannot be relayed.
   */
  remake(old: R, relays: number): R | null;
}

/** The relay plan of a host's current room, and its promotion when the plan says so. */
export class RoomPromotion<R extends PromotedRoom = PromotedRoom> {
  /** How the current room is relayed by the rule (`relaysFor`): a threshold makes it promote itself. */
  plan: RelayPlan = SINGLE_ROOM;
  /** A promotion asked for by a seat and not run yet. */
  private promotion: TimerHandle | null = null;

  /** `clock` runs the promotion's own turn (a host's metered clock: an entry of the object like any other). */
  constructor(
    private readonly host: PromotionHost<R>,
    private readonly clock: Clock,
  ) {}

  /**
   * A new room's plan, and the relays it is made over (0: single). Relayed by the same rule the
   * gateway routes by, so a room the matchmaker makes (no join URL in sight) is a simulation when
   * its kind is relayed from the start, and promotes itself at its threshold; a checkpoint of a
   * relayed room (a promoted one too) comes back relayed (`stored`). A promotion makes its room
   * over its own count ({@link PromotionHost.remake}), without asking here.
   */
  place(kind: string, def: GameDefinition | undefined, env: unknown, overrides: { relays?: number; relayAt?: number } | undefined, stored: number): number {
    const plan = relaysFor(kind, def, env as RelaysEnv | undefined, overrides);
    this.plan = plan;
    return relaysAtMaking(plan, 0, stored);
  }

  /**
   * A seat was taken: a room whose seats reach its plan's threshold is promoted, on a turn of
   * its own (the seat's welcome, sent in this one, goes out before its socket is closed).
   */
  promoteWhenDue(): void {
    const room = this.host.current();
    if (!room || this.promotion !== null || !promotionDue(this.plan, this.host.relayed(), room.seatCount)) return;
    this.promotion = this.clock.setTimer(() => {
      this.promotion = null;
      if (this.host.current() === room && promotionDue(this.plan, this.host.relayed(), room.seatCount)) this.promote(room);
    }, 0);
  }

  /**
   * Promotes the single room to a relayed one, as a restart would bring it back, without one:
   * its checkpoint (seats, tokens, last seqs, listing, the world when periodic checkpoints are
   * on) is restored into a simulation made in its place with the same overrides, store, bans and
   * pending seat reservations; the old room is handed over (its sockets closed with
   * `going_away`, which the SDK answers by reconnecting at once with its token, its timers
   * stopped, nothing freed or disposed), and the clients come back through the gateway, which
   * the room's host now answers with its relay count, via relays into their held seats. The new
   * room's epoch is new, as after a restart. A relayed room stays relayed while it lives.
   */
  private promote(old: R): void {
    const relays = this.plan.relays;
    const seats = old.seatCount;
    const reserved = old.pendingReservations();
    let made: R | null;
    try {
      made = this.host.remake(old, relays);
    } catch (e) {
      // A game that cannot be relayed (its sync names no world): the single room goes on as it
      // was, and is not promoted again.
      this.plan = SINGLE_ROOM;
      console.error(`[room ${old.kind}:${old.roomId}] not promoted: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    made?.holdReservations(reserved);
    old.handOver(CloseCode.going_away, "the room is now relayed; reconnect");
    this.host.saveCheckpoint();
    console.log(`[room ${old.kind}:${old.roomId}] promoted at ${seats} seats: relayed over ${relays} relays`);
  }
}
