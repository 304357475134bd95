/**
 * How crowded a capacity point's world is, and the join query each point runs with. The
 * standard density is the job users run: the world grows with the players so each one sees
 * about as much as at 100 (agar: AOI 250, world edge 1000·√(N/100)). The sparse one is the
 * game's own default world and AOI (agar: AOI 600 in 4000², far fewer enters and leaves), which
 * earlier capacity figures used; it stays available for a second row.
 */
import { mergeQuery } from "../load/config";

/** `standard`: the scenario's users' density, world scaled per point; `sparse`: the game's default world. */
export type CapacityDensity = "standard" | "sparse";

/** The densities `--density` accepts. */
export const CAPACITY_DENSITIES: readonly CapacityDensity[] = ["standard", "sparse"];

/** A scenario's standard density: its AOI radius and world edge at `players` players. */
interface StandardDensity {
  aoi: number;
  world(players: number): number;
  /** How it reads in a report. */
  label: string;
}

const STANDARD: Readonly<Record<string, StandardDensity>> = {
  agar: { aoi: 250, world: (n) => Math.round(1000 * Math.sqrt(n / 100)), label: "AOI 250, world 1000·√(N/100)" },
};

/** The density a scenario's capacity runs at when none is asked for: standard where it has one. */
export function defaultDensity(scenario: string): CapacityDensity {
  return Object.hasOwn(STANDARD, scenario) ? "standard" : "sparse";
}

/** How a density reads in a report, e.g. `standard (AOI 250, world 1000·√(N/100))`. */
export function densityLabel(scenario: string, density: CapacityDensity = defaultDensity(scenario)): string {
  return density === "standard" && Object.hasOwn(STANDARD, scenario) ? `standard (${STANDARD[scenario]!.label})` : "sparse (the game's default world and AOI)";
}

/**
 * The join query of a point: the user's `query`, the density's `aoi` and `world` (standard),
 * and `cap=<players>`.
 *
 * @throws Error for a standard density the scenario has none of, or a query that sets `aoi` or
 *   `world` itself (it would silently measure another density).
 */
export function pointQuery(o: { scenario: string; density?: CapacityDensity; query?: string }, players: number): string {
  const withCap = mergeQuery(o.query, `cap=${players}`);
  if ((o.density ?? defaultDensity(o.scenario)) === "sparse") return withCap;
  const d = Object.hasOwn(STANDARD, o.scenario) ? STANDARD[o.scenario] : undefined;
  if (!d) throw new Error(`no standard density for scenario ${o.scenario}: use --density sparse (its default world)`);
  const asked = new URLSearchParams(o.query ?? "");
  if (asked.has("aoi") || asked.has("world")) throw new Error("--query sets aoi or world: the standard density sets them per point (use --density sparse to set your own)");
  return mergeQuery(`aoi=${d.aoi}&world=${d.world(players)}`, withCap);
}
