/** What one side of an A/B comparison runs, parsed from `--a`/`--b`, and the order of the runs. */

/** One side of an A/B: server (config or revision) and room/load options layered on the base run. */
export interface AbSpec {
  label: string;
  /** "staging" or a wrangler config path (relative to the checkout). */
  config: string;
  /** A git revision to serve instead of the working tree (checked out into a worktree). */
  rev?: string;
  /** DEV_MODE query layered over the base `--query`. */
  query?: string;
  scenario?: string;
  players?: number;
  rate?: number;
  /** Spectators beside the players (`--spectators`; issue 34's A/B: the same match with and without them). */
  spectators?: number;
}

const KEYS = ["label", "config", "rev", "query", "scenario", "players", "rate", "spectators"] as const;

/**
 * Parses `key=value` pairs separated by commas, e.g.
 * `label=aoi250,config=wrangler.staging.jsonc,query=aoi=250&tickMs=50`. A value runs to the next
 * comma, so queries keep their own `=` and `&`. Unknown keys and bad numbers are errors.
 */
export function parseAbSpec(text: string, defaultLabel: string): AbSpec {
  const spec: AbSpec = { label: defaultLabel, config: "staging" };
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new Error(`spec part "${part}" must be key=value (keys: ${KEYS.join(", ")})`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    switch (key) {
      case "label":
      case "config":
      case "rev":
      case "scenario":
        if (!value) throw new Error(`spec key ${key} needs a value`);
        spec[key] = value;
        break;
      case "query":
        spec.query = value.replace(/^\?/, "");
        break;
      case "spectators": {
        const n = Number(value);
        if (!(Number.isInteger(n) && n >= 0)) throw new Error(`spec spectators must be a whole number (got ${value})`);
        spec.spectators = n;
        break;
      }
      case "players":
      case "rate": {
        const n = Number(value);
        if (!(Number.isFinite(n) && n > 0) || (key === "players" && !Number.isInteger(n))) throw new Error(`spec ${key} must be a positive ${key === "players" ? "integer" : "number"} (got ${value})`);
        spec[key] = n;
        break;
      }
      default:
        throw new Error(`unknown spec key "${key}" (keys: ${KEYS.join(", ")})`);
    }
  }
  return spec;
}

/** Run order of `repeats` runs per side. */
export type AbOrder = "alternate" | "abba";

/**
 * The sequence of sides: "alternate" is A B A B …; "abba" is A B B A A B B A … (each pair
 * mirrored, so a drift over time, e.g. the machine warming up, hits both sides alike).
 */
export function abOrder(repeats: number, order: AbOrder): ("A" | "B")[] {
  const out: ("A" | "B")[] = [];
  for (let i = 0; i < repeats; i++) {
    const flip = order === "abba" && i % 2 === 1;
    out.push(flip ? "B" : "A", flip ? "A" : "B");
  }
  return out;
}

/** A short description of a spec for tables and logs. */
export function describeSpec(s: AbSpec): string {
  const parts = [s.rev ? `rev ${s.rev}` : "working tree", s.config];
  if (s.query) parts.push(`?${s.query}`);
  if (s.scenario) parts.push(s.scenario);
  if (s.players) parts.push(`${s.players} players`);
  if (s.rate) parts.push(`${s.rate} Hz`);
  return parts.join(", ");
}
