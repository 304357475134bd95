import type { BinaryWriter } from "./binaryWriter";
import type { ClientView } from "./delta/clientView";
import type { Schema, SchemaDecl } from "./schema/schema";

/**
 * A game's client-facing declaration: the room kind, how a typed input becomes its payload, how
 * an event body becomes a typed event, and (as types) the state a client sees. A game exports
 * one from the module its clients import (schema and codecs, no room code); the client SDK's
 * `connect(url, { game, room })` reads the types off it, so inputs, events and state are checked
 * at compile time. Build it with {@link defineGameTypes}.
 *
 * `I` is the input, `E` the event (a union when the game has several kinds), `S` the state a
 * connection's `state` events carry: the {@link ClientView} of the schema in binary rooms, the
 * declared view type in JSON rooms.
 */
export interface GameTypes<I = unknown, E = unknown, S = unknown> {
  /** The room kind clients join (`/rooms/<kind>/<id>`). */
  readonly kind: string;
  /** The entity schema of a binary room; null in JSON rooms. */
  readonly schema: Schema<any> | null;
  /** True for JSON text-mode rooms. */
  readonly json: boolean;
  /**
   * Turns one input into its payload: bytes in binary rooms (written with `w`, valid until its
   * next use; the connection copies what it keeps), a JSON value in JSON rooms.
   */
  encodeInput(input: I, w: BinaryWriter): unknown;
  /** Turns one event body into an event; null (a kind this client does not know) drops it. */
  decodeEvent(body: unknown): E | null;
  /** Type carrier only, never set: the state type `S`. */
  readonly stateType?: S;
}

/** Any {@link GameTypes}: the constraint of functions generic over a game. */
export type AnyGameTypes = GameTypes<any, any, any>;

/** The input type of game declaration `G`. */
export type InputOf<G extends AnyGameTypes> = G extends GameTypes<infer I, any, any> ? I : never;
/** The event type of game declaration `G`. */
export type EventOf<G extends AnyGameTypes> = G extends GameTypes<any, infer E, any> ? E : never;
/** The state type of game declaration `G` (what its connection's `state` events carry). */
export type StateOf<G extends AnyGameTypes> = G extends GameTypes<any, any, infer S> ? S : never;

/** What {@link defineGameTypes} takes for a binary room with an entity schema. */
export interface BinaryGameSpec<I, E, D extends SchemaDecl> {
  /** The room kind. */
  kind: string;
  /** The room's entity schema; the client state is its {@link ClientView}. */
  schema: Schema<D>;
  /** Encodes one input with `w` (reset it first) and returns the bytes. */
  encodeInput(input: I, w: BinaryWriter): Uint8Array;
  /** Decodes one event body (valid only during the call); null for a kind not known. Without it, events are the raw bytes. */
  decodeEvent?(body: Uint8Array): E | null;
}

/** What {@link defineGameTypes} takes for a JSON text-mode room. */
export interface JsonGameSpec<I, E> {
  /** The room kind. */
  kind: string;
  /** Marks the JSON room. */
  json: true;
  /** Turns an input into the JSON value sent; default: the input itself. */
  encodeInput?(input: I): unknown;
  /** Checks or converts one event value; null for a kind not known. Default: the value as is. */
  decodeEvent?(body: unknown): E | null;
}

/**
 * The second step of {@link defineGameTypes}: takes the spec, infers the schema, and returns the
 * declaration. Binary specs get the schema's {@link ClientView} as their state type; JSON specs
 * the `S` given to `defineGameTypes`.
 */
export interface GameTypesBuilder<I, E, S> {
  /** A binary room with an entity schema. */
  <D extends SchemaDecl>(spec: BinaryGameSpec<I, E, D>): GameTypes<I, E, ClientView<D>>;
  /** A JSON text-mode room. */
  (spec: JsonGameSpec<I, E>): GameTypes<I, E, S>;
}

const passThrough = (v: unknown): unknown => v;

/**
 * Declares a game's client-facing types: `defineGameTypes<Input, Event>()({ kind, schema,
 * encodeInput, decodeEvent })` for a binary room (the state type comes from the schema), or
 * `defineGameTypes<Input, Event, View>()({ kind, json: true })` for a JSON room. Two steps so
 * the input and event types are written once while the schema's type is still inferred.
 *
 * @example
 * ```ts
 * export const tagGame = defineGameTypes<TagInput, TagEvent>()({
 *   kind: "tag", schema: tagSchema, encodeInput: (i, w) => encodeTagInput(w, i), decodeEvent: decodeTagEvent,
 * });
 * // client: const room = connect(url, { game: tagGame, room: "r1" }); room.sendInput({ dx: 1, dy: 0 });
 * ```
 */
export function defineGameTypes<I, E = never, S = unknown>(): GameTypesBuilder<I, E, S> {
  return ((spec: BinaryGameSpec<I, E, SchemaDecl> | JsonGameSpec<I, E>): GameTypes<I, E, unknown> => {
    if ("schema" in spec) {
      return {
        kind: spec.kind,
        schema: spec.schema,
        json: false,
        encodeInput: spec.encodeInput,
        decodeEvent: (spec.decodeEvent ?? passThrough) as (body: unknown) => E | null,
      };
    }
    const encode = spec.encodeInput;
    return {
      kind: spec.kind,
      schema: null,
      json: true,
      encodeInput: encode ? (input: I) => encode(input) : passThrough,
      decodeEvent: (spec.decodeEvent ?? passThrough) as (body: unknown) => E | null,
    };
  }) as GameTypesBuilder<I, E, S>;
}
