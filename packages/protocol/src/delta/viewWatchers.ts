import type { EntityRecord, EntityType, FieldValue, SchemaDecl } from "../schema/schema";
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

type AnyChange = (entity: never, value: unknown, previous: unknown) => void;

/**
 * The change callbacks of one ClientView, by field, resolved per entity type so the decode loop
 * asks one array slot per changed field, and records what changed while a body is decoded (to
 * call back only once the body applied whole). Reused arrays: no allocation per body.
 */
export class ViewWatchers {
  readonly #byName = new Map<string, readonly AnyChange[]>();
  /** Per type index, per field index: the field's callbacks, or undefined. Rebuilt on (un)subscribe. */
  #byType: (readonly AnyChange[] | undefined)[][] = [];
  /** Changes of the body being decoded, four slots each: entity, callbacks, value, previous. */
  readonly #pending: unknown[] = [];

  readonly #types: readonly EntityType[];

  constructor(types: readonly EntityType[]) {
    this.#types = types;
  }

  /** Adds `fn` for field `name`; returns the unsubscribe function. */
  add(name: string, fn: AnyChange): () => void {
    const byName = this.#byName;
    byName.set(name, [...(byName.get(name) ?? []), fn]);
    this.#rebuild();
    return () => {
      byName.set(name, without(byName.get(name) ?? [], fn));
      this.#rebuild();
    };
  }

  /** The callbacks of field `fieldIndex` of type `typeIndex`, or undefined when none watch it. */
  watched(typeIndex: number, fieldIndex: number): readonly AnyChange[] | undefined {
    return this.#byType[typeIndex]?.[fieldIndex];
  }

  /** Records one change of the body being decoded. */
  record(entity: unknown, fns: readonly AnyChange[], value: unknown, previous: unknown): void {
    this.#pending.push(entity, fns, value, previous);
  }

  /** Forgets the changes recorded (a new body, or one that failed). */
  reset(): void {
    this.#pending.length = 0;
  }

  /** Calls back the recorded changes in wire order. */
  dispatch(): void {
    const p = this.#pending;
    for (let i = 0; i < p.length; i += 4) for (const fn of p[i + 1] as AnyChange[]) fn(p[i] as never, p[i + 2], p[i + 3]);
    this.reset();
  }

  #rebuild(): void {
    this.#byType = this.#types.map((t) => t.fields.map((f) => {
      const fns = this.#byName.get(f.name);
      return fns?.length ? fns : undefined;
    }));
  }
}

/**
 * `list` without the first `fn` (the same list when absent). Callback lists are replaced, never
 * mutated, so a callback may unsubscribe while its list is being called.
 */
export function without<T>(list: readonly T[], fn: T): readonly T[] {
  const i = list.indexOf(fn);
  return i < 0 ? list : [...list.slice(0, i), ...list.slice(i + 1)];
}
