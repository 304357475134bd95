/**
 * The link between a relayed room's simulation object and its relay objects (AGENTS.md
 * "Relays"): how a relay object is named, the one transport choice ({@link SocketPort}), and
 * the RPC a simulation asks its relays' counters with. Nothing here needs `cloudflare:workers` (the
 * gateway imports the naming and is unit-tested in Node).
 */
import { MAX_RELAYS } from "@tikron/protocol";
import { resolveRoomOptions, type BusyReading, type DurationSummary, type GameDefinition } from "@tikron/core";
import type { RelayPort } from "@tikron/core/relay";

/** Name of room `kind:roomId`'s object in the rooms' namespace (a relayed room's simulation). */
export function roomObjectName(kind: string, roomId: string): string {
  return `${kind}:${roomId}`;
}

/** Name of relay `index` of room `kind:roomId` in the rooms' namespace (the simulation is `kind:roomId`). */
export function relayObjectName(kind: string, roomId: string, index: number): string {
  return `${kind}:${roomId}#relay${index}`;
}

/** A relay object's RPC surface as its simulation sees it (see `RoomObject`): DEV_MODE stats only. */
export interface RelayRpc {
  /** The relay's own counters (DEV_MODE stats); null when the object holds no relay. */
  relayStats(): Promise<RelayObjectStats | null>;
}

/**
 * One relay object's counters as DEV_MODE stats show them, apart from the simulation's
 * (`adapter.relayObjects`): the frames, bytes and flush times are the relays', not the
 * simulation's, in a relayed room.
 */
export interface RelayObjectStats {
  /** The relay's index. */
  index: number;
  /** Open sockets. */
  sockets: number;
  /** Clients seated through it. */
  seated: number;
  /** Flushes it encoded. */
  flushes: number;
  /** Frames it sent its clients. */
  frames: number;
  /** Bytes it sent its clients. */
  bytesOut: number;
  /** Messages its clients sent. */
  messagesIn: number;
  /** Its flushes' wall time (begin to last send, across slices). */
  flush: DurationSummary;
  /** Its link's sends that failed. */
  linkFailures: number;
  /** Its errors by code (bad client messages, bad simulation messages). */
  errors: Record<string, number>;
  /** The relay object's own time (core `BusyMeter`). */
  busy: BusyReading;
}

/**
 * A {@link RelayPort} over the WebSocket a relay object opens to its simulation (`stub.fetch`
 * with `Upgrade: websocket`, accepted with the standard API on both ends): one binary message
 * per relay message, in order. The one place the transport between objects is chosen: measured
 * ~10× cheaper in worker CPU per message than an RPC call (PERFORMANCE.md, "Relays: the
 * transport between objects"). Either end's object restarting closes the socket; what follows
 * is the host's (roomObject.ts).
 */
export class SocketPort implements RelayPort {
  /** Sends that threw (the socket had closed). */
  failures = 0;

  constructor(private readonly ws: Pick<WebSocket, "send" | "close">) {}

  send(data: Uint8Array): void {
    // No copy: workerd copies the bytes on send, so the sender's reused writer may be lent here.
    try {
      this.ws.send(data);
    } catch {
      this.failures++;
    }
  }

  /** Closes the link (a relay replaced by one that started again). */
  close(): void {
    try {
      this.ws.close(1000, "replaced");
    } catch {
      // already closed
    }
  }
}

/** The Worker var naming the kinds whose rooms are relayed, over how many relays and from how many seats. */
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
 * (`at` 0) or from the seat that brings them to `at` seats (a promotion, roomPromotion.ts).
 */
export interface RelayPlan {
  /** Relay objects of a relayed room (0: the room's own object holds its sockets). */
  relays: number;
  /** Seats at which the room becomes relayed; 0: from its start. */
  at: number;
}

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
 * from the start), else the Worker var `ROOM_RELAYS` for the kind, else the kind's definition
 * (`defaults.relays`, `defaults.relayAt`; 0). A Worker var rather than the game's code because
 * how big a deployment runs its rooms is the operator's choice, changed without a release (and
 * per load run); the definition's default is for a game that is always big. Throws `RangeError`
 * for a malformed `ROOM_RELAYS`.
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
 * The promotion decision: a room of `plan` that is not relayed yet and has `seats` seats is
 * promoted to a relayed room now. Only rooms with a threshold are; once relayed a room stays so
 * (a room is made single again only after it is let go, empty).
 */
export function promotionDue(plan: RelayPlan, relayedNow: boolean, seats: number): boolean {
  return !relayedNow && plan.relays >= 1 && plan.at > 0 && seats >= plan.at;
}

let nextAnonymousRelay = 0;

/**
 * The relay (0..relays-1) a join goes to. With an identity (a ticket's or a reservation's
 * player id), a stable hash of it: every socket of one identity lands on one relay, so that
 * relay's per-identity limits see them all, and a reconnect lands where the seat's last socket
 * was. Without one (DEV_MODE joins with no ticket), round robin in this gateway instance. Not
 * least-loaded: the gateway knows no relay's load without asking, and hashing spreads many
 * identities evenly enough.
 */
export function relayIndexFor(identity: string | undefined, relays: number): number {
  if (identity === undefined) return nextAnonymousRelay++ % relays;
  // FNV-1a, 32 bits.
  let h = 0x811c9dc5;
  for (let i = 0; i < identity.length; i++) h = Math.imul(h ^ identity.charCodeAt(i), 0x01000193);
  return (h >>> 0) % relays;
}
