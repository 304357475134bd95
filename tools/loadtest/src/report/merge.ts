import { mergeRoomsById } from "../metrics/mergeRoomData";
import { assembleReport, type Report } from "./report";

/** Config fields that must match for shards to describe one run. */
const MUST_MATCH = ["url", "scenario", "players", "rooms", "durationSec", "rampSec", "storm", "rate", "roomPrefix", "query", "turnBased", "match"] as const;

/**
 * Merges shard reports exactly: per-room counters summed and histograms merged bucket by bucket,
 * generator entries kept side by side (each process's saturation verdict stands). Refuses the
 * same shard twice (that would double count); warns when the shards do not look like one run.
 */
export function mergeReports(reports: readonly Report[], name = "merged"): Report {
  if (reports.length === 0) throw new Error("nothing to merge");
  const seen = new Map<string, number>();
  reports.forEach((r, i) => {
    for (const g of r.generators) {
      const key = `${g.runId} ${g.label}`;
      const prev = seen.get(key);
      if (prev !== undefined) {
        throw new Error(`inputs ${prev + 1} and ${i + 1} both contain run ${g.runId} ${g.label}; merging would double count`);
      }
      seen.set(key, i);
    }
  });
  const first = reports[0];
  const warnings: string[] = [];
  for (const k of MUST_MATCH) {
    // A matchmaking run's rooms are the matchmaker's: its room prefix names nothing.
    if (k === "roomPrefix" && first.config.match) continue;
    const values = new Set(reports.map((r) => JSON.stringify(r.config[k])));
    if (values.size > 1) warnings.push(`config.${k} differs between inputs: ${[...values].join(" vs ")}`);
  }
  const commits = new Set(reports.map((r) => r.environment.commit));
  if (commits.size > 1) warnings.push(`inputs come from different commits: ${[...commits].join(", ")}`);
  const shardCounts = new Set(reports.map((r) => r.config.shard.count));
  const shardTotal = reports.reduce((s, r) => s + r.generators.length, 0);
  if (shardCounts.size === 1 && first.config.shard.count > 1 && shardTotal !== first.config.shard.count) {
    warnings.push(`run was split into ${first.config.shard.count} shards but ${shardTotal} were merged`);
  }
  return assembleReport({
    name,
    config: { ...first.config, name },
    environment: first.environment,
    generators: reports.flatMap((r) => r.generators),
    rooms: mergeRoomsById(reports.flatMap((r) => r.rooms)),
    match: reports.flatMap((r) => (r.match ? [r.match] : [])),
    ...(first.restart ? { restart: first.restart } : {}),
    merge: {
      inputs: reports.map((r) => ({
        name: r.name,
        runId: r.config.runId,
        shard: `${r.config.shard.index}/${r.config.shard.count}`,
        createdAt: r.createdAt,
        commit: r.environment.commit,
      })),
      warnings: [...warnings, ...reports.flatMap((r) => r.merge?.warnings ?? [])],
    },
  });
}
