/**
 * Recorded matches on the Node host (`serveRooms({ replays: { dir } })`): each recorded room's
 * log is appended piece by piece to `<dir>/<kind>/<matchId>.tkml.part` as the room seals them
 * (writes queued per match, never in the room's turn), and when the match ends it becomes
 * `<matchId>.tkml` beside its summary `<matchId>.json`, which the admin API lists. Matches
 * older than the retention are deleted when another one ends.
 */
import { mkdir, appendFile, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_RETENTION_DAYS, matchStartedAt, pastRetention, type MatchSummary, type RecordingSink, type ReplayArchive } from "@tikron/core/replay";

/** Where and how long the Node host keeps recorded matches. */
export interface NodeReplayOptions {
  /** The folder (made if missing); one folder per kind inside it. */
  dir: string;
  /** Days a recorded match is kept (default 30; 0: for ever). */
  retentionDays?: number;
}

/** The Node host's recorded matches: the sink each recorded room writes to, and the admin API's archive. */
export class NodeReplays implements ReplayArchive {
  readonly #dir: string;
  readonly #retentionDays: number;
  /** Each match's writes, in order. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Every write not yet done (the server's close waits for them). */
  readonly #pending = new Set<Promise<void>>();

  constructor(options: NodeReplayOptions) {
    this.#dir = options.dir;
    this.#retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
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
          // A room nobody joined is no match worth keeping.
          if (summary.players === 0) return void (await rm(part, { force: true }));
          await rename(part, join(folder, `${summary.matchId}.tkml`));
          await writeFile(join(folder, `${summary.matchId}.json`), JSON.stringify(summary));
          await this.#prune(folder, summary.endedAt);
        });
        const last = this.#queues.get(summary.matchId);
        void last?.then(() => {
          if (this.#queues.get(summary.matchId) === last) this.#queues.delete(summary.matchId);
        });
      },
    };
  }

  async list(kind: string): Promise<MatchSummary[]> {
    const folder = join(this.#dir, kind);
    const names = await readdir(folder).catch(() => [] as string[]);
    const out: MatchSummary[] = [];
    for (const name of names) {
      if (!name.endsWith(".json")) continue;
      try {
        out.push(JSON.parse(await readFile(join(folder, name), "utf8")) as MatchSummary);
      } catch {
        // A summary being written, or removed meanwhile: listed next time.
      }
    }
    return out.sort((a, b) => (a.matchId < b.matchId ? 1 : a.matchId > b.matchId ? -1 : 0));
  }

  async get(kind: string, matchId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    try {
      return new Uint8Array(await readFile(join(this.#dir, kind, `${matchId}.tkml`)));
    } catch {
      return null;
    }
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

  /** Deletes a folder's matches past the retention. */
  async #prune(folder: string, now: number): Promise<void> {
    for (const name of await readdir(folder)) {
      const id = name.split(".")[0]!;
      if (pastRetention(matchStartedAt(id), this.#retentionDays, now)) await rm(join(folder, name), { force: true });
    }
  }
}
