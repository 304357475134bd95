/** What a relay (relay/relayRoom.ts) is made with. */
import type { Schema, SchemaDecl } from "@tikron/protocol";
import type { BusyMeter } from "../busyMeter";
import type { Clock } from "../clock";
import type { RoomOptions } from "../roomOptions";
import type { SyncWorldOptions } from "../sync/quantizedStore";
import type { RelayPort } from "./relayPort";

/** What a relay is made with. */
export interface RelayInit<D extends SchemaDecl = SchemaDecl> {
  /** Kind of the relayed room, for logs. */
  kind: string;
  /** Id of the relayed room, for logs. */
  roomId: string;
  /** The game's schema: the mirror's layout. */
  schema: Schema<D>;
  /** The simulation world's options (tiers, cell size), which the mirror must share. */
  world: SyncWorldOptions;
  /** The room's options as the simulation resolves them (socket budgets, backpressure, slices, tick). */
  options?: Partial<RoomOptions>;
  /** Carries the relay's messages to the simulation. */
  port: RelayPort;
  /** The relay's clock (default: the system's). */
  clock?: Clock;
  /** The host's meter of the relay object's own time: the relay's timers count on it. */
  busy?: BusyMeter;
  /** The relay's index in its room, as its host names it (its counters' label in `tk:stats`; default 0). */
  index?: number;
}

