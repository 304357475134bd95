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

/** The Worker var naming the kinds whose rooms are relayed and over how many relays. */
export interface RelaysEnv {
  /**
   * `kind=K` pairs, comma-separated (`"agar=3"`, `"agar=3,fps=2"`): every room of those kinds is
   * relayed over K relay objects, however it is joined (directly or through the matchmaker). A
   * kind not named takes its definition's `defaults.relays` (0: one object).
   */
  ROOM_RELAYS?: string;
}

let parsedText: string | undefined;
let parsed: ReadonlyMap<string, number> = new Map();

/**
 * The kinds `ROOM_RELAYS` names and their relay counts; a malformed value is a `RangeError` that
 * says what is wrong (the deployment's configuration, refused loudly rather than half-read).
 */
export function parseRoomRelays(text: string): ReadonlyMap<string, number> {
  const out = new Map<string, number>();
  for (const part of text.split(",")) {
    const entry = part.trim();
    if (entry === "") continue;
    const m = /^([A-Za-z0-9_-]+)\s*=\s*(\d+)$/.exec(entry);
    const k = m ? Number(m[2]) : NaN;
    if (!m || !(k <= MAX_RELAYS)) throw new RangeError(`ROOM_RELAYS: "${entry.slice(0, 40)}" is not kind=K with K in 0..${MAX_RELAYS}`);
    if (out.has(m[1]!)) throw new RangeError(`ROOM_RELAYS names ${m[1]} twice`);
    out.set(m[1]!, k);
  }
  return out;
}

/**
 * How many relays a room of `kind` runs with — the one rule, read by the gateway (where a join
 * goes) and by the room's object (whether the room it makes is a simulation): a join's DEV_MODE
 * `relays=K` override, else the Worker var `ROOM_RELAYS` for the kind, else the kind's
 * definition (`defaults.relays`, 0). A Worker var rather than the game's code because how big a
 * deployment runs its rooms is the operator's choice, changed without a release (and per load
 * run); the definition's default is for a game that is always big. Throws `RangeError` for a
 * malformed `ROOM_RELAYS`.
 */
export function relaysFor(kind: string, definition: GameDefinition | undefined, env: RelaysEnv | undefined, override: number | undefined): number {
  if (override !== undefined) return override;
  const text = env?.ROOM_RELAYS ?? "";
  if (text !== parsedText) {
    parsed = parseRoomRelays(text);
    parsedText = text;
  }
  return parsed.get(kind) ?? (definition ? resolveRoomOptions(definition.defaults).relays : 0);
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
