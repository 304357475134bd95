import type { TttRecord } from "./tttEnv";
import type { TttRoundResult } from "./tttResults";
import type { Board, Mark } from "./tttRules";

/** One seat as clients see it. */
export interface TttSeatView {
  playerId: number;
  name: string;
  /** False while the player's socket is gone and the seat is held for a reconnect. */
  connected: boolean;
}

/**
 * The `ttt-json` state a client receives (the `state` of a JSON `state` message), whole, each
 * time anything changed.
 */
export interface TttView {
  /** 9 cells, row-major. */
  board: Board;
  /** The receiving player's mark. */
  you: Mark | null;
  seats: { X: TttSeatView | null; O: TttSeatView | null };
  /** `waiting` for a second player, `playing`, or over: `won` / `draw`. */
  status: "waiting" | "playing" | "won" | "draw";
  /** Whose move it is (only while playing). */
  turn: Mark | null;
  winner: Mark | null;
  /** The winning cells, when won on the board. */
  line: number[] | null;
  /** True when the round was won because the other player left. */
  forfeit: boolean;
  /** Marks that asked for a rematch since the round ended. */
  rematch: Mark[];
  /** Rounds started since the room opened. */
  round: number;
  /** Results between the current two players (reset when a seat changes hands). */
  score: { X: number; O: number; draws: number };
  /** The room's last finished rounds, newest first, across restarts and sessions. */
  recent: TttRoundResult[];
  /**
   * The receiving player's own record across rooms (by its identity): null while it is being
   * read, for a throwaway DEV_MODE `anon-…` identity, or where the host keeps none.
   */
  record: TttRecord | null;
}
