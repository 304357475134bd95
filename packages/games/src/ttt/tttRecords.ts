/**
 * Each player's own `ttt-json` record across rooms: wins, losses and draws by identity (the
 * room's `Player.identity`, the same in every room for a ticket's, a JWT's or a DEV_MODE guest's
 * identity). Kept where the host keeps it: a D1 database on Cloudflare (the `RESULTS` binding,
 * table `ttt_records` from packages/games/migrations), or any {@link TttRecordStore} the host
 * hands the game as `TTT_RECORDS` (the Node host's: {@link memoryTttRecords}). The game reads a
 * player's record when it joins and adds to it when a round ends, both off the tick path
 * (`ctx.defer`); docs/write-your-own-room.md, "A player's own record", is this pattern.
 */
import type { ResultsDatabase, TttEnv, TttRecord, TttRecordStore } from "./tttEnv";

export type { TttRecord, TttOutcome, TttRecordStore } from "./tttEnv";

/** No rounds yet. */
export const NO_RECORD: Readonly<TttRecord> = Object.freeze({ wins: 0, losses: 0, draws: 0 });

/**
 * Identities not worth a record: a DEV_MODE join's throwaway `anon-…` identity (a new one for
 * every seat) would leave a row per join and never be seen again.
 */
export function keepsRecord(identity: string): boolean {
  return identity !== "" && !identity.startsWith("anon-");
}

const GET_SQL = "SELECT wins, losses, draws FROM ttt_records WHERE identity = ?1";
const ADD_SQL =
  "INSERT INTO ttt_records (identity, wins, losses, draws, updated_at) VALUES (?1, ?2, ?3, ?4, ?5) " +
  "ON CONFLICT (identity) DO UPDATE SET wins = wins + excluded.wins, losses = losses + excluded.losses, draws = draws + excluded.draws, updated_at = excluded.updated_at";

/** Records in a D1 database (table `ttt_records`, migration 0002); one statement per read or round. */
export function d1TttRecords(db: ResultsDatabase): TttRecordStore {
  return {
    async get(identity) {
      const { results } = await db.prepare(GET_SQL).bind(identity).all();
      const row = results[0];
      return row ? { wins: Number(row.wins) || 0, losses: Number(row.losses) || 0, draws: Number(row.draws) || 0 } : { ...NO_RECORD };
    },
    async add(identity, outcome) {
      await db.prepare(ADD_SQL).bind(identity, outcome === "win" ? 1 : 0, outcome === "loss" ? 1 : 0, outcome === "draw" ? 1 : 0, Date.now()).run();
    },
  };
}

/** Records in this process's memory (the Node host: every room of the process shares them; lost with it). */
export function memoryTttRecords(): TttRecordStore {
  const byIdentity = new Map<string, TttRecord>();
  return {
    get: async (identity) => ({ ...(byIdentity.get(identity) ?? NO_RECORD) }),
    async add(identity, outcome) {
      const r = { ...(byIdentity.get(identity) ?? NO_RECORD) };
      if (outcome === "win") r.wins++;
      else if (outcome === "loss") r.losses++;
      else r.draws++;
      byIdentity.set(identity, r);
    },
  };
}

/** The record store the host hands the game: `TTT_RECORDS`, else one on the `RESULTS` database, else none. */
export function recordStoreOf(env: TttEnv | undefined): TttRecordStore | null {
  if (env?.TTT_RECORDS) return env.TTT_RECORDS;
  return env?.RESULTS ? d1TttRecords(env.RESULTS) : null;
}
