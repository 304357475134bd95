import type { EntityRecord, FieldValue, SchemaDecl } from "../schema/schema";
import type { ViewEntity } from "./viewEntity";

/** Every field name declared by some entity type of schema declaration `D`. */
export type FieldName<D extends SchemaDecl> = { [K in keyof D]: keyof D[K] & string }[keyof D];

/** Entities of the types of `D` that declare field `F`, discriminated by `type`. */
export type EntityWithField<D extends SchemaDecl, F extends string> = {
  [K in keyof D & string]: F extends keyof D[K] ? ViewEntity<K, EntityRecord<D[K]>> : never;
}[keyof D & string];

/** The value type of field `F` over the types of `D` that declare it. */
export type FieldValueOf<D extends SchemaDecl, F extends string> = { [K in keyof D]: F extends keyof D[K] ? FieldValue<D[K][F]> : never }[keyof D];

/**
 * Called once per changed field of an entity, after the whole body applied, with the new and the
 * previous value. Map fields change in place: `value` and `previous` are then the same map.
 */
export type FieldChangeCallback<D extends SchemaDecl, F extends string> = (entity: EntityWithField<D, F>, value: FieldValueOf<D, F>, previous: FieldValueOf<D, F>) => void;

/**
 * A field callback that also hears the value each entity starts with (`onChange` with
 * `{ immediate: true }`): then `previous` is undefined.
 */
export type FieldValueCallback<D extends SchemaDecl, F extends string> = (
  entity: EntityWithField<D, F>,
  value: FieldValueOf<D, F>,
  previous: FieldValueOf<D, F> | undefined,
) => void;

/** Options of the view's `onAdd` and `onChange`. */
export interface WatchOptions {
  /**
   * Also report what is already there: `onAdd` calls back at once for every entity in view;
   * `onChange` calls back at once with the current value of every entity in view that has the
   * field, and later with the first value of every entity that enters (`previous` undefined).
   */
  immediate?: boolean;
}

/** A field change callback with its types erased, as the view stores it. */
export type AnyChange = (entity: never, value: unknown, previous: unknown) => void;

/**
 * `list` without the first `fn` (the same list when absent). Callback lists are replaced, never
 * mutated, so a callback may unsubscribe while its list is being called.
 */
export function without<T>(list: readonly T[], fn: T): readonly T[] {
  const i = list.indexOf(fn);
  return i < 0 ? list : [...list.slice(0, i), ...list.slice(i + 1)];
}
