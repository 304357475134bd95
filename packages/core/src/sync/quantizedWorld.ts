import type { GridAoi, PriorityTiers } from "@tikron/aoi";
import type { Schema, SchemaDecl } from "@tikron/protocol";
import type { MapFieldState } from "./mapFieldState";
import type { Viewer } from "./viewer";

/**
 * What the encoder reads from a world: `SyncWorld`'s quantized store, grid and tiers. The
 * encoder depends on this shape, not on the world class, so the world can make its encoder
 * without the two files importing each other. Fields are documented on `QuantizedStore`, which
 * `SyncWorld` and a relay's `MirrorWorld` extend.
 */
export interface QuantizedWorld<D extends SchemaDecl = SchemaDecl> {
  readonly schema: Schema<D>;
  readonly grid: GridAoi;
  readonly tiers: PriorityTiers;
  readonly stride: number;
  readonly rowSize: number;
  readonly epoch: number;
  readonly rows: Int32Array;
  readonly stringBytes: readonly (Uint8Array | undefined)[];
  readonly maps: readonly (MapFieldState | undefined)[];
  readonly prevValues: Int32Array;
  readonly changed: Int32Array;
  readonly changedCount: number;
  readonly rowsVersion: number;
  readonly capacity: number;
  /** Quantizes every changed record into the store (once per flush). */
  quantizeAll(): void;
  /** Every viewer by player id. */
  readonly viewers: ReadonlyMap<number, Viewer>;
  /** The viewer (AOI centre) of a player. */
  viewer(playerId: number): Viewer;
  /** Spawn serial of the entity in slot `id` (tells a reused id apart). */
  serialOf(id: number): number;
}
