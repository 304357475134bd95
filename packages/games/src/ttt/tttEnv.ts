/**
 * What `ttt-json` reads of its host's environment (`ctx.env`): where finished rounds go and
 * where each player's record across rooms is kept. Plain interfaces on the slice of the D1 API
 * they use, so the games package knows nothing of Cloudflare: a `D1Database` fits
 * {@link ResultsDatabase}, and tests pass a stand-in.
 */

/** The slice of `D1Database` the results use (a D1 binding fits it). */
export interface ResultsDatabase {
  /** A statement with `?1`… parameters. */
  prepare(query: string): {
    /** Binds the parameters, in order. */
    bind(...values: unknown[]): {
      /** Runs a write. */
      run(): Promise<unknown>;
      /** Runs a read: its rows. */
      all(): Promise<{ results: Record<string, unknown>[] }>;
    };
  };
}

/** The host environment `ttt-json` reads: where its results and its players' records go. */
export interface TttEnv {
  /**
   * Where finished rounds are written, and (without `TTT_RECORDS`) each player's record
   * (`ttt_records`); without it rounds are kept only in the room's store.
   */
  RESULTS?: ResultsDatabase;
  /** Where each player's record across rooms is kept, when not in `RESULTS` (the Node host: `memoryTttRecords()`). */
  TTT_RECORDS?: TttRecordStore;
}

/** One player's record. */
export interface TttRecord {
  /** Rounds won (a forfeit by the other player included). */
  wins: number;
  /** Rounds lost (a forfeit included). */
  losses: number;
  /** Rounds drawn. */
  draws: number;
}

/** How a finished round ended for one player. */
export type TttOutcome = "win" | "loss" | "draw";

/** Where records are kept: read one, add one round's outcome. */
export interface TttRecordStore {
  /** The record of `identity` (all zero when it has none). */
  get(identity: string): Promise<TttRecord>;
  /** Adds one finished round's outcome to the record of `identity`. */
  add(identity: string, outcome: TttOutcome): Promise<void>;
}
