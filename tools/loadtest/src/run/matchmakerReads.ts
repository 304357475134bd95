/**
 * What a matchmaking run reads from the server besides playing: the matchmaker's DEV_MODE stats
 * (`GET /match/<kind>/stats`: its counters, decision times and directory, one entry per shard)
 * and each room's tk:stats over HTTP (`GET /rooms/<kind>/<roomId>/stats`), which answers for a
 * room whether or not a player of this thread is still in it. Both are DEV_MODE only: elsewhere
 * the figures that need them are reported as not measured.
 */
import type { DirectoryRoom, DirectorySample, DirectorySampleKind, MatchMetrics, MatchmakerShardStats } from "../metrics/matchMetrics";
import type { RoomMetrics } from "../metrics/roomMetrics";
import { readGatewayStats, readWrites, type GatewayReading, type PathStart } from "../metrics/joinPath";
import { round2 } from "../metrics/round2";

/** Rooms whose tk:stats are asked for at once. */
const STATS_CONCURRENCY = 8;

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

function counts(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof v === "object" && v !== null) for (const [k, x] of Object.entries(v)) if (typeof x === "number") out[k] = x;
  return out;
}

/** One shard's entry of the stats answer, and its directory. */
function readShard(v: unknown): { stats: MatchmakerShardStats; directory: Omit<DirectoryRoom, "shard">[] } | null {
  if (typeof v !== "object" || v === null) return null;
  const o = v as Record<string, unknown>;
  if (!Array.isArray(o.directory)) return null;
  const d = (o.decision ?? {}) as Record<string, unknown>;
  const directory = o.directory.flatMap((r: unknown) => {
    const x = r as Record<string, unknown>;
    if (typeof r !== "object" || r === null || typeof x.roomId !== "string") return [];
    return [{ roomId: x.roomId, clients: num(x.clients), reserved: num(x.reserved), maxClients: num(x.maxClients) }];
  });
  return {
    stats: {
      requests: counts(o.requests),
      seated: num(o.seated),
      roomsCreated: num(o.roomsCreated),
      roomRefusals: num(o.roomRefusals),
      refused: counts(o.refused),
      rooms: num(o.rooms),
      decision: { count: num(d.count), p50: num(d.p50), p95: num(d.p95), p99: num(d.p99), max: num(d.max) },
      ...(typeof o.busy === "object" && o.busy !== null ? { busy: counts((o.busy as Record<string, unknown>).entries), storage: readWrites(o.storage), reserves: num(o.reserves) } : {}),
    },
    directory,
  };
}

/** The matchmaker's stats and directory, one entry per shard, or why they could not be read. */
export async function readMatchmaker(
  httpBase: string,
  kind: string,
  timeoutMs: number,
): Promise<{ shards: MatchmakerShardStats[]; directory: DirectoryRoom[] } | string> {
  try {
    const res = await fetch(`${httpBase}/match/${encodeURIComponent(kind)}/stats`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return `matchmaker stats: http_${res.status}`;
    const body = (await res.json()) as unknown;
    if (!Array.isArray(body)) return "matchmaker stats: not an array";
    const shards: MatchmakerShardStats[] = [];
    const directory: DirectoryRoom[] = [];
    for (const [shard, entry] of body.entries()) {
      const read = readShard(entry);
      if (!read) return "matchmaker stats: malformed shard entry";
      shards.push(read.stats);
      for (const r of read.directory) directory.push({ ...r, shard });
    }
    return { shards, directory };
  } catch (e) {
    return `matchmaker stats: ${e instanceof Error ? e.name : "error"}`;
  }
}

/** The gateway's DEV_MODE figures (`GET /gateway/stats`), or null when it has none to give. */
export async function readGateway(httpBase: string, timeoutMs: number): Promise<GatewayReading | null> {
  try {
    const res = await fetch(`${httpBase}/gateway/stats`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.arrayBuffer();
      return null;
    }
    return readGatewayStats(await res.json());
  } catch {
    return null;
  }
}

/** The join path's start (metrics/joinPath.ts): the gateway's and the matchmaker's figures now. */
export async function readPathStart(httpBase: string, kind: string, timeoutMs: number): Promise<PathStart> {
  const [gateway, mm] = await Promise.all([readGateway(httpBase, timeoutMs), readMatchmaker(httpBase, kind, timeoutMs)]);
  return { gateway, matchmaker: typeof mm === "string" ? null : mm.shards };
}

/** A directory sample: every room at the end of arrivals, only rooms above their cap otherwise. */
export function directorySample(kind: DirectorySampleKind, tSec: number, directory: readonly DirectoryRoom[]): DirectorySample {
  const rooms = kind === "arrivals_end" ? [...directory] : directory.filter((r) => r.clients + r.reserved > r.maxClients);
  return { tSec: round2(tSec), kind, listed: directory.length, rooms };
}

/**
 * The matchmaker's directory sampled into a thread's match metrics (one thread of a run does
 * it): each sample is read in the background; the `end` one keeps the matchmaker's stats too.
 */
export class DirectorySampler {
  private readonly reads = new Set<Promise<void>>();
  private readonly taken = new Set<DirectorySampleKind>();

  constructor(
    private readonly httpBase: string,
    private readonly kind: string,
    private readonly timeoutMs: number,
    private readonly metrics: MatchMetrics,
  ) {}

  /** Whether a sample of this kind was asked for. */
  has(kind: DirectorySampleKind): boolean {
    return this.taken.has(kind);
  }

  /** Reads the directory now (`tSec` into the run); a read that fails names why in the metrics. */
  sample(kind: DirectorySampleKind, tSec: number): void {
    this.taken.add(kind);
    // The gateway's figures with the last sample, before the rooms' stats are read.
    if (kind === "end") this.reads.add(readGateway(this.httpBase, this.timeoutMs).then((g) => void (this.metrics.gateway = g)));
    const p = readMatchmaker(this.httpBase, this.kind, this.timeoutMs).then((read) => {
      if (typeof read === "string") {
        this.metrics.matchmakerError = read;
        return;
      }
      this.metrics.directory.push(directorySample(kind, tSec, read.directory));
      if (kind === "end") this.metrics.matchmaker = read.shards;
    });
    this.reads.add(p);
  }

  /** Waits for every read asked for (each bounded by its timeout). */
  async settle(): Promise<void> {
    await Promise.all(this.reads);
  }
}

/** Each room's tk:stats over HTTP into its metrics (`tkStats`, or `tkStatsError`), within `timeoutMs` each. */
export async function fetchRoomStatsHttp(httpBase: string, kind: string, rooms: readonly RoomMetrics[], timeoutMs: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < rooms.length) {
      const room = rooms[next++]!;
      try {
        const res = await fetch(`${httpBase}/rooms/${encodeURIComponent(kind)}/${encodeURIComponent(room.roomId)}/stats`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!res.ok) {
          room.tkStatsError = `stats: http_${res.status}`;
          continue;
        }
        room.tkStats = { stats: (await res.json()) as unknown, fetchedAt: Date.now() };
      } catch (e) {
        room.tkStatsError = `stats: ${e instanceof Error ? e.name : "error"}`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(STATS_CONCURRENCY, rooms.length) }, worker));
}

/**
 * Lists the kind's rooms once (`GET /match/<kind>/rooms`), which starts a cold matchmaker object,
 * so the run's first player does not measure its start. Whatever the answer, the run goes on.
 */
export async function touchMatchmaker(httpBase: string, kind: string, query: string, timeoutMs: number): Promise<void> {
  try {
    const res = await fetch(`${httpBase}/match/${encodeURIComponent(kind)}/rooms${query ? `?${query}` : ""}`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
  } catch {
    // A server without a matchmaker shows in the players' refusals, with their reasons.
  }
}
