/**
 * What a match and a party share: what a match request asks for, the connection options a
 * match takes for the connection it makes, the connection it resolves to, and the join with a
 * reserved seat.
 */
import type { AnyGameTypes, AnyMessages, AnyNotices, EventOf, InputOf, MatchFilters, MessagesOf, NoticesOf, SeatReservation, StateOf } from "@tikron/protocol";
import type { ConnectOptions, GameConnectOptions } from "./connectOptions";
import { RoomConnection } from "./roomConnection";

/** What a match request asks for, beside the connection's own options. */
export interface MatchOptions {
  /** Which rooms qualify: metadata keys the game declared filterable (`{mode: "ranked", level: {gte: 3}}`). */
  filters?: MatchFilters;
  /** Options a room created for this request is made with (the game turns them into metadata). */
  options?: Record<string, unknown>;
  /** `create` only: the new room is private (never listed; others join it by id). */
  private?: boolean;
}

/** Connection options a match takes for the game it joins (kind, room and ticket come from the match). */
export type JoinOptions<G> = G extends AnyGameTypes ? Omit<GameConnectOptions<G>, "game" | "room" | "ticket" | "authToken"> : Omit<ConnectOptions, "kind" | "room" | "ticket" | "authToken">;
/** The connection a match resolves to: typed by the game declaration, or untyped for a kind name. */
export type ConnectionOf<G> = G extends AnyGameTypes ? RoomConnection<StateOf<G>, InputOf<G>, EventOf<G>, MessagesOf<G>, NoticesOf<G>> : RoomConnection<unknown, unknown, unknown, AnyMessages, AnyNotices>;

/** Joins with a reserved seat: a connection to the seat's room, with its reservation, once joined. */
export async function joinSeat<G extends AnyGameTypes | string>(game: G, seat: SeatReservation, options: JoinOptions<G> | undefined): Promise<ConnectionOf<G>> {
  const conn = new RoomConnection<unknown, unknown, unknown, AnyMessages, AnyNotices>(seat.url.slice(0, seat.url.indexOf("/rooms/")), {
    ...(options as object),
    ...(typeof game === "string" ? { kind: game } : { game }),
    room: seat.roomId,
    reservation: seat.reservation,
  } as ConnectOptions);
  await conn.whenJoined();
  return conn as ConnectionOf<G>;
}
