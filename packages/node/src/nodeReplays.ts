/**
 * Recorded matches on the Node host (`serveRooms({ replays: { dir } })`): each recorded room's
 * log is appended piece by piece to `<dir>/<kind>/<matchId>.tkml.part` as the room seals them
 * (writes queued per match, never in the room's turn), and when the match ends it goes into the
 * core's archive (`BucketArchive`, the Cloudflare host's too) over this folder: `<matchId>.tkml`
 * beside its summary `<matchId>.json`, listed by the admin API, matches past the retention
 * deleted when another one ends.
 */
import { mkdir, appendFile, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BucketArchive, DEFAULT_RETENTION_DAYS, type MatchSummary, type RecordingSink, type ReplayArchive, type ReplayBucket } from "@tikron/core/replay";

/** Where and how long the Node host keeps recorded matches. */
export interface NodeReplayOptions {
  /** The folder (made if missing); one folder per kind inside it. */
  dir: string;
  /** Days a recorded match is kept (default 30; 0: for ever). */
  retentionDays?: number;
}

/** A folder as the core's `ReplayBucket`: `<key>` holds the log, the same path in `.json` its summary. */
export function folderBucket(dir: string): ReplayBucket {
  const summaryPath = (key: string) => join(dir, key.replace(/\.tkml$/, ".json"));
  return {
    async put(key, bytes, summary) {
      await mkdir(join(dir, key, ".."), { recursive: true });
      await writeFile(join(dir, key), bytes);
      await writeFile(summaryPath(key), summary);
    },
    async list(prefix) {
      const names = await readdir(join(dir, prefix)).catch(() => [] as string[]);
      const keys = names.filter((n) => n.endsWith(".tkml")).map((n) => prefix + n).sort();
      // A summary being written, or removed meanwhile, is missing: listed next time.
      return { objects: await Promise.all(keys.map(async (key) => ({ key, summary: await readFile(summaryPath(key), "utf8").catch(() => undefined) }))), truncated: false };
    },
    async get(key) {
      return readFile(join(dir, key)).then(
        (b) => new Uint8Array(b),
        () => null,
      );
    },
    async delete(keys) {
      for (const key of keys) await Promise.all([rm(join(dir, key), { force: true }), rm(summaryPath(key), { force: true })]);
    },
  };
}

/** The Node host's recorded matches: the sink each recorded room writes to, and the admin API's archive. */
export class NodeReplays implements ReplayArchive {
  readonly #dir: string;
  readonly #archive: BucketArchive;
  /** Each match's writes, in order. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Every write not yet done (the server's close waits for them). */
  readonly #pending = new Set<Promise<void>>();

  constructor(options: NodeReplayOptions) {
    this.#dir = options.dir;
    this.#archive = new BucketArchive(folderBucket(options.dir), options.retentionDays ?? DEFAULT_RETENTION_DAYS);
  }

  /** The sink of one recorded room of `kind`. */
  sink(kind: string): RecordingSink {
    const folder = join(this.#dir, kind);
    return {
      chunk: (matchId, index, bytes) => {
        this.#queue(matchId, async () => {
          if (index === 0) await mkdir(folder, { recursive: true });
          await appendFile(join(folder, `${matchId}.tkml.part`), bytes);
        });
      },
      end: (summary) => {
        this.#queue(summary.matchId, async () => {
          const part = join(folder, `${summary.matchId}.tkml.part`);
          // The archive keeps no match nobody joined, and prunes the kind's old ones.
          await this.#archive.keep(summary, summary.players > 0 ? await readFile(part) : new Uint8Array(0), summary.endedAt);
          await rm(part, { force: true });
        });
        const last = this.#queues.get(summary.matchId);
        void last?.then(() => {
          if (this.#queues.get(summary.matchId) === last) this.#queues.delete(summary.matchId);
        });
      },
    };
  }

  list(kind: string): Promise<MatchSummary[]> {
    return this.#archive.list(kind);
  }

  get(kind: string, matchId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    return this.#archive.get(kind, matchId);
  }

  /** Resolves once every write asked for so far is done (or failed: each failure is logged). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  #queue(matchId: string, write: () => Promise<void>): void {
    const next = (this.#queues.get(matchId) ?? Promise.resolve()).then(write).catch((e: unknown) => {
      console.error(`[replays] writing match ${matchId} failed`, e);
    });
    this.#queues.set(matchId, next);
    this.#pending.add(next);
    void next.then(() => this.#pending.delete(next));
  }
}
