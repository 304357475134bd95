import type { EntityRecord, SchemaDecl } from "../schema/schema";

/** One entity as a client sees it: its wire id, its type and its decoded record. */
export interface ViewEntity<Name extends string = string, R = Record<string, unknown>> {
  /** The entity's wire id (reused after a leave). */
  readonly id: number;
  /** Its entity type name. */
  readonly type: Name;
  /** Its entity type's wire tag. */
  readonly typeIndex: number;
  /** Decoded field values, updated in place as deltas arrive. */
  readonly record: R;
}

/** A {@link ViewEntity} of any type of schema declaration `D`, discriminated by `type`. */
export type AnyViewEntity<D extends SchemaDecl> = {
  [K in keyof D & string]: ViewEntity<K, EntityRecord<D[K]>>;
}[keyof D & string];
