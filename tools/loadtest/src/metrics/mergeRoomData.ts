import { mergeEncoded } from "./histogram";
import { zeroCounters, type RoomCounters, type RoomData } from "./roomMetrics";

function sumMaps(maps: readonly Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of maps) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/**
 * Exact merge of room metrics: counters summed, histograms merged bucket by bucket. Used both
 * for shards of the same room (threads, machines) and for the all-rooms total.
 */
export function mergeRoomData(parts: readonly RoomData[], roomId: string): RoomData {
  const counters = zeroCounters();
  for (const p of parts) {
    for (const k of Object.keys(counters) as (keyof RoomCounters)[]) counters[k] += p.counters[k] ?? 0;
  }
  // The room's own snapshot: the latest one wins when several shards fetched it.
  let tkStats: RoomData["tkStats"] = null;
  for (const p of parts) if (p.tkStats && (!tkStats || p.tkStats.fetchedAt > tkStats.fetchedAt)) tkStats = p.tkStats;
  const tkStatsError = tkStats ? null : (parts.find((p) => p.tkStatsError)?.tkStatsError ?? null);
  return {
    roomId,
    info: parts.find((p) => p.info)?.info ?? null,
    counters,
    closeCodes: sumMaps(parts.map((p) => p.closeCodes)),
    failureReasons: sumMaps(parts.map((p) => p.failureReasons)),
    errors: sumMaps(parts.map((p) => p.errors)),
    scenario: sumMaps(parts.map((p) => p.scenario)),
    histograms: {
      ackRtt: mergeEncoded(parts.map((p) => p.histograms.ackRtt)),
      frameGap: mergeEncoded(parts.map((p) => p.histograms.frameGap)),
      frameJitter: mergeEncoded(parts.map((p) => p.histograms.frameJitter)),
      scheduleLag: mergeEncoded(parts.map((p) => p.histograms.scheduleLag)),
      connect: mergeEncoded(parts.map((p) => p.histograms.connect)),
      ...mergeOptional(parts, "reconnect"),
      ...mergeOptional(parts, "reconnectAt"),
      ...mergeOptional(parts, "seated"),
    },
    tkStats,
    tkStatsError,
  };
}

/** An optional histogram merged from the parts that have it; absent when none does. */
function mergeOptional(parts: readonly RoomData[], key: "reconnect" | "reconnectAt" | "seated"): Partial<RoomData["histograms"]> {
  const present = parts.flatMap((p) => (p.histograms[key] ? [p.histograms[key]] : []));
  return present.length ? { [key]: mergeEncoded(present) } : {};
}

/** Groups room parts by room id and merges each group; output sorted by room id. */
export function mergeRoomsById(parts: readonly RoomData[]): RoomData[] {
  const byId = new Map<string, RoomData[]>();
  for (const p of parts) {
    const list = byId.get(p.roomId);
    if (list) list.push(p);
    else byId.set(p.roomId, [p]);
  }
  return [...byId.keys()]
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((id) => mergeRoomData(byId.get(id)!, id));
}
