import type { Connection } from "./connection";

/** A player's place in the room: kept across a dropped socket until the window expires. */
export interface Seat {
  playerId: number;
  token: string;
  name: string;
  /** The live socket, or null while the seat is held for a reconnect. */
  conn: ClientLink | null;
  /** Room time after which a held seat is freed. */
  heldUntil: number;
  /** Highest input seq received (monotonic; older or equal seqs are refused). */
  lastReceivedSeq: number;
  /** Highest input seq applied to the room. */
  lastProcessedSeq: number;
  /** Highest seq acked to the current socket. */
  lastAckedSeq: number;
  /** The encoder's per-client state (baselines), fresh on every (re)connect. */
  syncState: unknown;
  /** Events queued for the next flush (references, not copies). */
  events: unknown[];
}

/** One accepted socket, before or after it said hello. */
export interface ClientLink {
  connId: number;
  conn: Connection;
  /** Wire format chosen by the client's hello. */
  json: boolean;
  seat: Seat | null;
  errors: number;
  closed: boolean;
}
