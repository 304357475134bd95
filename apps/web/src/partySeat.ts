/**
 * The seat a party member's lobby tab hands to /play: kept in the tab's sessionStorage under
 * {@link PARTY_SEAT_KEY}, never in the address bar (its token is the member's ticket into the
 * room), read once by the game page (`?match=party`).
 */

/** Where a matched member's seat waits for /play (this tab only). */
export const PARTY_SEAT_KEY = "tikron.partySeat";

/** A seat handed from the lobby to /play. */
export interface PartySeat {
  kind: string;
  roomId: string;
  reservation: string;
}
