/**
 * What a room reports about itself to the lobby, and what `GET /lobby/rooms` lists: one shape for
 * the Cloudflare registry that keeps the list and the pages that show it.
 */
export interface RoomReport {
  /** Room kind, e.g. `agar`. */
  kind: string;
  /** Room id within its kind. */
  roomId: string;
  /** Connected human players. */
  players: number;
  /** Bot players seated. */
  bots: number;
  /** Seats. */
  cap: number;
  /** When the room (its object instance) started, Unix ms. */
  startedAt: number;
}
