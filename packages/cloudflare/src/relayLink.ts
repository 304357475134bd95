/**
 * The link between a relayed room's simulation object and its relay objects (AGENTS.md
 * "Relays"): how a relay object is named, the RPC surfaces each side calls on the other, and
 * the one transport choice, {@link RpcPort}. Nothing here needs `cloudflare:workers` (the
 * gateway imports the naming and is unit-tested in Node).
 */
import type { DurationSummary } from "@tikron/core";
import type { RelayPort } from "@tikron/core/relay";
import type { GameParamOverrides, RoomOptionOverrides } from "@tikron/protocol";

/** Name of room `kind:roomId`'s object in the rooms' namespace (a relayed room's simulation). */
export function roomObjectName(kind: string, roomId: string): string {
  return `${kind}:${roomId}`;
}

/** Name of relay `index` of room `kind:roomId` in the rooms' namespace (the simulation is `kind:roomId`). */
export function relayObjectName(kind: string, roomId: string, index: number): string {
  return `${kind}:${roomId}#relay${index}`;
}

/** The simulation's RPC surface as its relay objects see it (see `RoomObject`). */
export interface SimulationRpc {
  /**
   * Connects relay `index` (made from the same request's overrides and params): the room is made
   * when it does not exist. Answers null, or why the relay cannot be connected.
   */
  attachRelay(kind: string, roomId: string, index: number, overrides: RoomOptionOverrides, params: GameParamOverrides): Promise<string | null>;
  /** One message from relay `index`; false when this object does not know that relay (it started again). */
  fromRelay(index: number, data: Uint8Array): Promise<boolean>;
}

/** A relay object's RPC surface as its simulation sees it (see `RoomObject`). */
export interface RelayRpc {
  /** One message from the simulation; false when this object holds no relay (it started again). */
  fromSimulation(data: Uint8Array): Promise<boolean>;
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
  /** Its link's calls that failed. */
  linkFailures: number;
  /** Its errors by code (bad client messages, bad simulation messages). */
  errors: Record<string, number>;
}

/**
 * A {@link RelayPort} over Durable Object RPC: each message is one call on one stub, and calls
 * on one stub reach the object in the order they were made, which the relay protocol needs.
 * The call is not awaited (a flush does not wait for a relay); a call that fails is counted
 * and logged. A peer that answers false no longer knows this link (its object started again):
 * `lost` hears of it once, and what to do then is the host's. The one place the transport between objects is chosen: another (an
 * internal WebSocket) would be another `RelayPort` here.
 */
export class RpcPort implements RelayPort {
  /** Calls that failed. */
  failures = 0;
  /** The peer answered that it does not know this link. */
  isLost = false;

  /**
   * @param call sends one message (a call on the peer's stub); resolves false when the peer does not know the link.
   * @param what names the link in logs.
   * @param lost called once, the first time the peer answers false.
   */
  constructor(
    private readonly call: (data: Uint8Array) => Promise<boolean>,
    private readonly what: string,
    private readonly lost: () => void = () => {},
  ) {}

  send(data: Uint8Array): void {
    if (this.isLost) return;
    // A copy: `data` may be a view of the sender's reused writer.
    this.call(data.slice()).then(
      (known) => {
        if (known || this.isLost) return;
        this.isLost = true;
        this.lost();
      },
      (e: unknown) => {
        if (this.failures++ === 0) console.error(`[${this.what}] relay link call failed:`, e instanceof Error ? e.message : e);
      },
    );
  }
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
