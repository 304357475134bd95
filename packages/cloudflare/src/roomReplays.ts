/**
 * Recorded matches on Cloudflare (docs/replay.md): a recorded room's log goes piece by piece
 * into its object's storage and, when the match ends, becomes one object `<kind>/<matchId>.tkml`
 * in the R2 bucket `REPLAYS` (local R2 under `wrangler dev`), its summary in the object's custom
 * metadata; matches older than `REPLAY_RETENTION_DAYS` (default 30) are deleted when another of
 * their kind ends. The pieces, the cut matches found at a restart and the archive's rules are the
 * core's (`ReplayPieces`, `BucketArchive`); here is R2 as a `ReplayBucket`. Without the binding
 * nothing is recorded.
 */
import type { BusyMeter } from "@tikron/core";
import { BucketArchive, ReplayPieces, retentionDaysOf, type ReplayBucket } from "@tikron/core/replay";

/** The bindings recorded matches use. */
export interface ReplaysEnv {
  /** The R2 bucket recorded matches are kept in; absent: rooms are not recorded. */
  REPLAYS?: R2Bucket;
  /** Days a recorded match is kept (default 30; "0": for ever). */
  REPLAY_RETENTION_DAYS?: string;
}

/** The custom metadata key of a match object's summary. */
const SUMMARY_KEY = "summary";

/** What the recording of one object's rooms uses of the object. */
export type ReplayState = Pick<DurableObjectState, "storage" | "waitUntil">;

/** An R2 bucket as the core's `ReplayBucket`: the summary in each object's custom metadata. */
export function r2Bucket(bucket: R2Bucket): ReplayBucket {
  return {
    async put(key, bytes, summary) {
      await bucket.put(key, bytes, { httpMetadata: { contentType: "application/octet-stream" }, customMetadata: { [SUMMARY_KEY]: summary } });
    },
    async list(prefix, cursor) {
      const listed = await bucket.list({ prefix, cursor, include: ["customMetadata"] });
      return { objects: listed.objects.map((o) => ({ key: o.key, summary: o.customMetadata?.[SUMMARY_KEY] })), truncated: listed.truncated, cursor: listed.truncated ? listed.cursor : undefined };
    },
    async get(key) {
      const o = await bucket.get(key);
      return o ? new Uint8Array(await o.arrayBuffer()) : null;
    },
    delete: (keys) => bucket.delete(keys),
  };
}

/** The admin API's view of the `REPLAYS` bucket (gateway side): a kind's matches, newest first, and one match's log. */
export function r2Archive(bucket: R2Bucket, env?: ReplaysEnv): BucketArchive {
  return new BucketArchive(r2Bucket(bucket), retentionDaysOf(env?.REPLAY_RETENTION_DAYS));
}

/** The recording side of one room's object (core `ReplayPieces`); null without a `REPLAYS` binding. */
export function roomReplays(state: ReplayState, env: ReplaysEnv | undefined, busy: BusyMeter): ReplayPieces | null {
  return env?.REPLAYS ? new ReplayPieces(state, r2Archive(env.REPLAYS, env), busy) : null;
}
