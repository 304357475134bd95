/**
 * Finished `ttt-json` rounds kept outside the room: written to a D1 database (the Worker binding
 * `RESULTS`, table `ttt_rounds` from packages/games/migrations) when a round ends, and read back
 * by room id. Plain SQL on the slice of the D1 API it uses, so the games package knows nothing
 * of Cloudflare: a `D1Database` fits {@link ResultsDatabase}, and tests pass a stand-in.
 */
import type { ResultsDatabase } from "./tttEnv";
import type { Mark } from "./tttRules";

/** One finished round. */
export interface TttRoundResult {
  /** The round's number in its room's session (1, 2, …). */
  round: number;
  /** When it ended, Unix epoch ms. */
  endedAt: number;
  /** Who played X. */
  x: string;
  /** Who played O. */
  o: string;
  /** The mark that won, or `draw`. */
  outcome: Mark | "draw";
  /** True when it was won because the other player left. */
  forfeit: boolean;
}

export type { ResultsDatabase, TttEnv } from "./tttEnv";

/** Most rounds {@link recentRounds} returns. */
export const MAX_HISTORY_ROUNDS = 50;

const INSERT_SQL = "INSERT INTO ttt_rounds (room_id, ended_at, round, x_name, o_name, outcome, forfeit) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
const RECENT_SQL = "SELECT ended_at, round, x_name, o_name, outcome, forfeit FROM ttt_rounds WHERE room_id = ?1 ORDER BY ended_at DESC, round DESC LIMIT ?2";

/** Writes one finished round of room `roomId`. */
export function saveRound(db: ResultsDatabase, roomId: string, r: TttRoundResult): Promise<unknown> {
  return db.prepare(INSERT_SQL).bind(roomId, r.endedAt, r.round, r.x, r.o, r.outcome, r.forfeit ? 1 : 0).run();
}

/** Room `roomId`'s last `limit` rounds (at most {@link MAX_HISTORY_ROUNDS}), newest first. */
export async function recentRounds(db: ResultsDatabase, roomId: string, limit = 10): Promise<TttRoundResult[]> {
  const n = Math.max(1, Math.min(MAX_HISTORY_ROUNDS, Math.floor(limit) || 1));
  const { results } = await db.prepare(RECENT_SQL).bind(roomId, n).all();
  return results.map((row) => ({
    round: Number(row.round),
    endedAt: Number(row.ended_at),
    x: String(row.x_name),
    o: String(row.o_name),
    outcome: row.outcome === "X" || row.outcome === "O" ? row.outcome : "draw",
    forfeit: row.forfeit === 1,
  }));
}
