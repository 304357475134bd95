import type { CloseName, MatchErrorCode } from "@tikron/protocol";

/**
 * Why a connection ended without a seat: what {@link RoomConnection.whenJoined} rejects with once
 * the connection gives up. `code` names the close that ended it: a refusal of the join
 * (`unauthorized`, `forbidden`, `not_found`, `bad_request`, `unavailable`, `room_full`, or
 * `join_throttled` once the retries are used up), another close of the room's table (`replaced`,
 * `room_closed`, `bad_hello`, …), or `closed` for a close by the caller or one with no code of the
 * table (a drop, 1006, after the last retry). New refusal codes in the protocol's `CloseCode`
 * table arrive here by name with no change to this class. A match (`matchmaker`'s calls) refused
 * by the matchmaker itself rejects with it too: `code` is the matchmaker's (`no_room`,
 * `bad_filter`, `queue_timeout`, …) and `closeCode` 0.
 */
export class JoinError extends Error {
  // Declared, not defined: as ES2022 class fields each name would be emitted twice (see Field).
  /** The close's name in the protocol's `CloseCode` table, `closed`, or a matchmaker's refusal (see the class). */
  declare readonly code: CloseName | MatchErrorCode | "closed";
  /** The WebSocket close code (1006 for a drop the socket gave no code for; 0 for a matchmaker's refusal). */
  declare readonly closeCode: number;
  /** The server's reason, without the wait it may have asked for (or the client's own words); also the `message`. */
  declare readonly reason: string;
  /** When > 0, how long the server asked the client to wait before trying again (ms). */
  declare readonly retryAfterMs: number;
  constructor(code: CloseName | MatchErrorCode | "closed", closeCode: number, reason: string, retryAfterMs = 0) {
    super(reason || code);
    this.name = "JoinError";
    this.code = code;
    this.closeCode = closeCode;
    this.reason = reason;
    this.retryAfterMs = retryAfterMs;
  }
}

/** The game's own refusal of a join: its code and reason (see {@link gameRefusal}). */
export interface GameRefusal {
  /** The game's code (`team_full`, `mark_taken`: what its `refuseJoin` named). */
  code: string;
  /** The game's reason. */
  reason: string;
}

/**
 * The game's own refusal in a {@link JoinError}: when the game's admission refused the join
 * (`code` `join_refused`, close 4024), the code and reason the game gave (`refuseJoin(code,
 * reason)` on the server); null for any other error. A page that never reads it bundles none of it.
 *
 * @example
 * ```ts
 * room.whenJoined().catch((e) => {
 *   const refusal = gameRefusal(e);
 *   if (refusal?.code === "mark_taken") pickTheOtherMark();
 * });
 * ```
 */
export function gameRefusal(error: unknown): GameRefusal | null {
  if (!(error instanceof JoinError) || error.code !== "join_refused") return null;
  // The room writes `<code>: <reason>` (the code has no colon or space).
  const [code, ...rest] = error.reason.split(": ");
  return { code: code!, reason: rest.join(": ") };
}
