import { isMetadataValue, METADATA_KEY_PATTERN, type RoomMetadata } from "@tikron/protocol";

/** How a game's queue groups players (`POST /match/<kind>/queue`). */
export interface QueueSpec {
  /** Players per match: every group seated together has exactly this many. */
  groupSize: number;
  /**
   * The rating window: players are grouped when the ratings of a group lie within the window of
   * each member, which starts at `initial` and widens by `widenPerSec` for every second a member
   * has waited, up to `max`.
   */
  ratingWindow: {
    /** The window of a player who just joined the queue. */
    initial: number;
    /** How much it widens per second waited. */
    widenPerSec: number;
    /** The widest it gets. */
    max: number;
  };
  /** A player not grouped within this long is answered `queue_timeout` (ms). Default 60 000. */
  timeoutMs?: number;
}

/**
 * A game's matchmaking declaration (`GameDefinition.matchmaking`): which metadata keys clients
 * may filter on, how create options become a room's metadata, how long a reserved seat is held,
 * and the queue. Every field is optional: a kind without one is matched on room fill alone.
 */
export interface MatchmakingSpec {
  /** Metadata keys clients may filter on; any other filter key is refused `bad_filter`. */
  filterBy?: readonly string[];
  /**
   * Turns a create request's options (with the request's equality filters laid under them) into
   * the new room's metadata. Throw to refuse the options (`bad_options`, with the error's
   * message). Default: the `filterBy` keys found in the options.
   */
  metadata?(options: Record<string, unknown>): RoomMetadata;
  /** How long a reserved seat is held for its player before it is given up (ms). Default 10 000. */
  reservationTtlMs?: number;
  /** Rating queue; without it `POST /match/<kind>/queue` answers `no_queue`. */
  queue?: QueueSpec;
  /** Match requests one identity may make per second (sustained). Default 5. */
  requestsPerSec?: number;
  /** Burst of match requests one identity may make. Default 10. */
  requestBurst?: number;
  /**
   * Matchmaker shards for this kind (default 1). Each shard is one object deciding for its own
   * rooms (a room belongs to the shard its id hashes to); requests are spread by identity. More
   * shards, more requests per second, at the price of one partly filled room per shard.
   */
  shards?: number;
}

/** A {@link MatchmakingSpec} with every default filled in. */
export interface ResolvedMatchmaking {
  /** See {@link MatchmakingSpec.filterBy}. */
  filterBy: readonly string[];
  /** See {@link MatchmakingSpec.metadata}. */
  metadata(options: Record<string, unknown>): RoomMetadata;
  /** See {@link MatchmakingSpec.reservationTtlMs}. */
  reservationTtlMs: number;
  /** See {@link MatchmakingSpec.queue}. */
  queue: Required<QueueSpec> | null;
  /** See {@link MatchmakingSpec.requestsPerSec}. */
  requestsPerSec: number;
  /** See {@link MatchmakingSpec.requestBurst}. */
  requestBurst: number;
  /** See {@link MatchmakingSpec.shards}. */
  shards: number;
}

/** Default lifetime of a reserved seat (ms). */
export const DEFAULT_RESERVATION_TTL_MS = 10_000;
/** Default queue timeout (ms). */
export const DEFAULT_QUEUE_TIMEOUT_MS = 60_000;

/** The metadata a room gets from options when its game declares no `metadata` function. */
function pickFilterKeys(keys: readonly string[]): (options: Record<string, unknown>) => RoomMetadata {
  return (options) => {
    const out: RoomMetadata = {};
    for (const k of keys) {
      const v = options[k];
      if (isMetadataValue(v)) out[k] = v;
    }
    return out;
  };
}

function checkShards(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new Error("matchmaking.shards must be an integer 1..256");
  return n;
}

/** Fills in the defaults and checks the declaration, so a typo fails when the host starts. */
export function resolveMatchmaking(spec: MatchmakingSpec | undefined): ResolvedMatchmaking {
  const s = spec ?? {};
  const filterBy = s.filterBy ?? [];
  for (const k of filterBy) if (!METADATA_KEY_PATTERN.test(k)) throw new Error(`matchmaking.filterBy: "${k}" is not a metadata key`);
  const ttl = s.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  if (!(ttl >= 100 && ttl <= 120_000)) throw new Error("matchmaking.reservationTtlMs must be within 100..120000");
  let queue: Required<QueueSpec> | null = null;
  if (s.queue) {
    const q = s.queue;
    if (!Number.isInteger(q.groupSize) || q.groupSize < 2 || q.groupSize > 64) throw new Error("matchmaking.queue.groupSize must be an integer 2..64");
    const w = q.ratingWindow;
    if (!(w.initial >= 0 && w.widenPerSec >= 0 && w.max >= w.initial)) throw new Error("matchmaking.queue.ratingWindow needs 0 <= initial <= max and widenPerSec >= 0");
    queue = { groupSize: q.groupSize, ratingWindow: { ...w }, timeoutMs: q.timeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS };
  }
  return {
    filterBy,
    metadata: s.metadata ?? pickFilterKeys(filterBy),
    reservationTtlMs: ttl,
    queue,
    requestsPerSec: s.requestsPerSec ?? 5,
    requestBurst: s.requestBurst ?? 10,
    shards: checkShards(s.shards ?? 1),
  };
}
