/**
 * Where a room is placed: in one object (single), or as a simulation whose sockets are held by
 * K relays, from its start or from the seat that brings it to N seats (a promotion). The rule is
 * pure and host-neutral: a host's gateway reads it to route a join, the room's host to know what
 * room to make and when to promote it (AGENTS.md "Relays", "Promotion").
 */
import { MAX_RELAYS } from "@tikron/protocol";
import type { GameDefinition } from "../gameDefinition";
import { resolveRoomOptions } from "../roomOptions";

/** The deployment's setting naming the kinds whose rooms are relayed, over how many relays and from how many seats. */
export interface RelaysEnv {
  /**
   * `kind=K` or `kind=K@N` pairs, comma-separated (`"agar=3"`, `"agar=3@150,fps=2"`): rooms of
   * those kinds are relayed over K relay objects, however they are joined (directly or through
   * the matchmaker) — from their start (`kind=K`), or once N players are seated (`@N`: below N
   * the room's own object holds its sockets). A kind not named takes its definition's
   * `defaults.relays` and `defaults.relayAt` (0: one object).
   */
  ROOM_RELAYS?: string;
}

/**
 * How a kind's rooms are relayed: over `relays` relay objects (0: never), from their start
 * (`at` 0) or from the seat that brings them to `at` seats (a promotion).
 */
export interface RelayPlan {
  /** Relay objects of a relayed room (0: the room's own object holds its sockets). */
  relays: number;
  /** Seats at which the room becomes relayed; 0: from its start. */
  at: number;
}

/** A room that is never relayed (and one whose promotion failed). */
export const SINGLE_ROOM: RelayPlan = Object.freeze({ relays: 0, at: 0 });

let parsedText: string | undefined;
let parsed: ReadonlyMap<string, RelayPlan> = new Map();

/** Most seats `@N` may name: the most seats a room may have (the protocol's `cap` range). */
const MAX_RELAY_AT = 1000;

/**
 * The kinds `ROOM_RELAYS` names and how their rooms are relayed; a malformed value is a
 * `RangeError` that says what is wrong (the deployment's configuration, refused loudly rather
 * than half-read). `kind=0@N` is refused: a threshold for a room that is never relayed is a typo.
 */
export function parseRoomRelays(text: string): ReadonlyMap<string, RelayPlan> {
  const out = new Map<string, RelayPlan>();
  for (const part of text.split(",")) {
    const entry = part.trim();
    if (entry === "") continue;
    const m = /^([A-Za-z0-9_-]+)\s*=\s*(\d+)(?:\s*@\s*(\d+))?$/.exec(entry);
    const relays = m ? Number(m[2]) : NaN;
    const at = m?.[3] !== undefined ? Number(m[3]) : 0;
    if (!m || !(relays <= MAX_RELAYS) || !(at <= MAX_RELAY_AT) || (relays === 0 && m[3] !== undefined)) {
      throw new RangeError(`ROOM_RELAYS: "${entry.slice(0, 40)}" is not kind=K or kind=K@N with K in 0..${MAX_RELAYS} (1.. with @N) and N in 0..${MAX_RELAY_AT}`);
    }
    if (out.has(m[1]!)) throw new RangeError(`ROOM_RELAYS names ${m[1]} twice`);
    out.set(m[1]!, { relays, at });
  }
  return out;
}

/**
 * How a room of `kind` is relayed — the one rule, read by the gateway (where a join goes) and by
 * the room's object (whether the room it makes is a simulation, and when it promotes itself to
 * one): a join's DEV_MODE overrides (`relays=K`, `relayAt=N`; a `relays` override alone means
 * from the start), else the deployment's `ROOM_RELAYS` for the kind, else the kind's definition
 * (`defaults.relays`, `defaults.relayAt`; 0). A deployment setting rather than the game's code
 * because how big a deployment runs its rooms is the operator's choice, changed without a
 * release (and per load run); the definition's default is for a game that is always big. Throws
 * `RangeError` for a malformed `ROOM_RELAYS`.
 */
export function relaysFor(kind: string, definition: GameDefinition | undefined, env: RelaysEnv | undefined, override: { relays?: number; relayAt?: number } | undefined): RelayPlan {
  const text = env?.ROOM_RELAYS ?? "";
  if (text !== parsedText) {
    parsed = parseRoomRelays(text);
    parsedText = text;
  }
  const defaults = definition ? resolveRoomOptions(definition.defaults) : undefined;
  const base = parsed.get(kind) ?? { relays: defaults?.relays ?? 0, at: defaults?.relayAt ?? 0 };
  const relays = override?.relays ?? base.relays;
  const at = override?.relayAt ?? (override?.relays !== undefined ? 0 : base.at);
  return { relays, at: relays === 0 ? 0 : at };
}

/** True when a room of `plan` is relayed from its start: its joins go straight to its relays. */
export function relayedFromStart(plan: RelayPlan): boolean {
  return plan.relays >= 1 && plan.at === 0;
}

/**
 * The relays a room is made over (0: single): a promotion's own (`promoteTo`), else the count a
 * relayed room's checkpoint kept (`stored`: a relayed room, a promoted one too, comes back
 * relayed), else the plan's when it is relayed from its start. Below a threshold a room is made
 * single, and promotes itself when {@link promotionDue}.
 */
export function relaysAtMaking(plan: RelayPlan, promoteTo: number, stored: number): number {
  return promoteTo || stored || (relayedFromStart(plan) ? plan.relays : 0);
}

/**
 * The promotion decision: a room of `plan` that is not relayed yet and has `seats` seats is
 * promoted to a relayed room now. Only rooms with a threshold are; once relayed a room stays so
 * (a room is made single again only after it is let go, empty).
 */
export function promotionDue(plan: RelayPlan, relayedNow: boolean, seats: number): boolean {
  return !relayedNow && plan.relays >= 1 && plan.at > 0 && seats >= plan.at;
}
