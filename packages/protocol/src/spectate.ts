/**
 * How a spectator joins (the join URL's query) and switches what it watches (a room message):
 * the one definition the SDK writes and hosts read.
 *
 * A spectator's socket takes no seat and sends no inputs. Its URL is a room's join URL with
 * `spectate=1`, and optionally `follow=<playerId>` (see as that player sees: their viewer) or
 * `at=<x>,<y>` (a fixed point of the world), and `delay=<seconds>` (whole seconds, 0..
 * {@link MAX_SPECTATE_DELAY_S}; a game kind may require more). It says hello as a player does
 * and gets a welcome (player id 0, no token) and frames without acks.
 */

/** What a spectator watches: a player's view, or a fixed point of the world. */
export type SpectateTarget =
  | {
      /** The player whose view to watch (their viewer: what they see). */
      player: number;
    }
  | {
      /** A point of the world to watch from: x. */
      x: number;
      /** A point of the world to watch from: y. */
      y: number;
    };

/** A spectator's join: what it watches and how far behind the live match. */
export interface SpectateRequest {
  /** What to watch; none: the world's origin until a `tk:follow`. */
  target: SpectateTarget | null;
  /** Seconds behind the live match (whole seconds). */
  delaySec: number;
}

/** Longest delay a spectator may ask for, in seconds. */
export const MAX_SPECTATE_DELAY_S = 120;

/**
 * The room message a spectator switches target with: its payload is a {@link SpectateTarget}
 * (`{ "player": 3 }` or `{ "x": 10, "y": 20 }`); the reply is `{}`, or a `spectating` error.
 */
export const FOLLOW_MESSAGE = "tk:follow";

/** The query parameters of a spectator's join (`spectate=1&…`), to append to a join URL. */
export function spectateQuery(req: SpectateRequest): string {
  let q = "spectate=1";
  const t = req.target;
  if (t !== null && "player" in t) q += `&follow=${t.player}`;
  else if (t !== null) q += `&at=${t.x},${t.y}`;
  if (req.delaySec > 0) q += `&delay=${req.delaySec}`;
  return q;
}

/**
 * Reads a spectator's join from a join URL's query: null when it is a player's join (no
 * `spectate=1`), the request, or an error string for a malformed one.
 */
export function readSpectate(params: URLSearchParams): SpectateRequest | string | null {
  if (params.get("spectate") !== "1") return null;
  const follow = params.get("follow");
  const at = params.get("at");
  const delay = params.get("delay");
  let target: SpectateTarget | null = null;
  if (follow !== null && at !== null) return "spectate: give follow or at, not both";
  if (follow !== null) {
    const player = Number(follow);
    if (follow === "" || !Number.isInteger(player) || player < 0 || player > 0x7fffffff) return "spectate: follow must be a player id";
    target = { player };
  } else if (at !== null) {
    const parts = at.split(",");
    const t = parts.length === 2 && parts[0] !== "" && parts[1] !== "" ? readTarget({ x: Number(parts[0]), y: Number(parts[1]) }) : null;
    if (t === null) return "spectate: at must be <x>,<y>";
    target = t;
  }
  let delaySec = 0;
  if (delay !== null) {
    delaySec = Number(delay);
    if (delay === "" || !Number.isInteger(delaySec) || delaySec < 0 || delaySec > MAX_SPECTATE_DELAY_S) return `spectate: delay must be whole seconds 0..${MAX_SPECTATE_DELAY_S}`;
  }
  return { target, delaySec };
}

/** A {@link SpectateTarget} from a `tk:follow` payload (parsed JSON), or null when it is not one. */
export function readTarget(value: unknown): SpectateTarget | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  if ("player" in v) return Number.isInteger(v.player) && (v.player as number) >= 0 && (v.player as number) <= 0x7fffffff ? { player: v.player as number } : null;
  const { x, y } = v;
  if (typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y) || Math.abs(x) > 1e9 || Math.abs(y) > 1e9) return null;
  return { x, y };
}
