import type { BinaryWriter } from "./binaryWriter";
import { binaryDialect, type ClientDialect, type JsonDialect } from "./clientDialects";
import type { ClientView } from "./delta/clientView";
import type { JoinOptionFields, JoinOptionsDecl, JoinOptionsInput, JoinOptionValue, JoinOptionValues, PlayerOptions } from "./joinOptions";
import { declaredEventDecoder, type DeclaredEvent, type EventDecl } from "./schema/events";
import type { Schema, SchemaDecl } from "./schema/schema";

/**
 * A game's client-facing declaration: the room kind, how a typed input becomes its payload, how
 * an event body becomes a typed event, and (as types) the state a client sees. A game exports
 * one from the module its clients import (schema and codecs, no room code); the client SDK's
 * `connect(url, { game, room })` reads the types off it, so inputs, events and state are checked
 * at compile time. Build it with {@link defineGameTypes}.
 *
 * `I` is the input, `E` the event (a union when the game has several kinds; the schema's declared
 * events by default), `S` the state a connection's `state` events carry: the {@link ClientView}
 * of the schema in binary rooms, the declared view type in JSON rooms. `M` maps the game's custom
 * room message types to their request and response types ({@link defineMessages}), `N` its
 * notices' types to their payloads ({@link defineNotices}); `{}` when it has none.
 */
export interface GameTypes<I = unknown, E = unknown, S = unknown, M = {}, N = {}> {
  /** The room kind clients join (`/rooms/<kind>/<id>`). */
  readonly kind: string;
  /** The entity schema of a binary room; null in JSON rooms. */
  readonly schema: Schema<any> | null;
  /** True for JSON text-mode rooms. */
  readonly json: boolean;
  /** The dialect a client speaks to its rooms: the binary one, or the JSON one the declaration named. */
  readonly dialect: ClientDialect;
  /**
   * Turns one input into its payload: bytes in binary rooms (written with `w`, valid until its
   * next use; the connection copies what it keeps), a JSON value in JSON rooms.
   */
  encodeInput(input: I, w: BinaryWriter): unknown;
  /** Turns one event body into an event; null (a kind this client does not know) drops it. */
  decodeEvent(body: unknown): E | null;
  /** Type carrier only, never set: the state type `S`. */
  readonly stateType?: S;
  /** Type carrier only, never set: the message map `M`. */
  readonly messageTypes?: M;
  /** Type carrier only, never set: the notice map `N`. */
  readonly noticeTypes?: N;
  /**
   * The join options the game declares (`defineJoinOptions`): what a player may choose when
   * joining, checked by the room before a seat is taken. Absent: the game takes none.
   */
  readonly joinOptions?: JoinOptionsDecl;
}

/** Any {@link GameTypes}: the constraint of functions generic over a game. */
export type AnyGameTypes = GameTypes<any, any, any, any, any>;

/** One message of a message map: the request payload a client sends and the response it gets back. */
export interface MessageSpec {
  /** What the client sends (JSON-able). */
  request: unknown;
  /** What the room answers (JSON-able; `void` for a message answered with nothing). */
  response: unknown;
}

/**
 * The shape every message map has: each type name maps to a {@link MessageSpec}. Written as a
 * constraint on `M` itself so an `interface` qualifies (interfaces have no index signature).
 */
export type MessageShapes<M> = { [K in keyof M]: MessageSpec };

/** Any message map: what a connection without a game declaration may send (names and payloads unchecked). */
export type AnyMessages = Record<string, MessageSpec>;

/** The message type names of map `M`. */
export type MessageName<M> = keyof M & string;
/** The request payload of message `K` in map `M`. */
export type MessageRequest<M, K extends keyof M> = (M[K] & MessageSpec)["request"];
/** The response of message `K` in map `M`. */
export type MessageResponse<M, K extends keyof M> = (M[K] & MessageSpec)["response"];

/** Carries a message map's type in a game spec (see {@link defineMessages}); nothing at run time. */
export interface MessageTypes<M> {
  /** Type carrier only, never set. */
  readonly messageTypes?: M;
}

/**
 * Declares a game's custom room messages for {@link defineGameTypes}' `messages` field: the
 * map's types only (nothing is sent or checked at run time; the room's handler validates).
 *
 * @example
 * ```ts
 * interface TagMessages {
 *   chat: { request: { text: string }; response: void };
 *   ready: { request: { ready: boolean }; response: { ready: number; of: number } };
 * }
 * export const tagGame = defineGameTypes<TagInput, TagEvent>()({ kind: "tag", schema, encodeInput, messages: defineMessages<TagMessages>() });
 * // client: await withMessages(room).request("ready", { ready: true }) resolves to { ready, of }
 * ```
 */
export function defineMessages<M extends MessageShapes<M>>(): MessageTypes<M> {
  return {};
}

/** The message map of game declaration `G`. */
export type MessagesOf<G extends AnyGameTypes> = G extends GameTypes<any, any, any, infer M, any> ? M : never;

/** Carries a notice map's type in a game spec (see {@link defineNotices}); nothing at run time. */
export interface NoticeTypes<N> {
  /** Type carrier only, never set. */
  readonly noticeTypes?: N;
}

/**
 * Declares the notices a game's room sends on its own (`ctx.send` / `ctx.broadcast`: a
 * scoreboard, a round's summary) for {@link defineGameTypes}' `notices` field: a map from notice
 * type to its payload (JSON-able), as types only.
 *
 * @example
 * ```ts
 * interface TagNotices { roundOver: { winner: string; tags: number } }
 * export const tagGame = defineGameTypes<TagInput>()({ kind: "tag", schema, encodeInput, notices: defineNotices<TagNotices>() });
 * // room: ctx.broadcast("roundOver", { winner, tags }); client: room.on("notice", (n) => { if (n.type === "roundOver") show(n.data.winner); });
 * ```
 */
export function defineNotices<N extends Record<keyof N, unknown>>(): NoticeTypes<N> {
  return {};
}

/** The notice map of game declaration `G`. */
export type NoticesOf<G extends AnyGameTypes> = G extends GameTypes<any, any, any, any, infer N> ? N : never;

/** Any notice map: what a connection without a game declaration hears (types and payloads unchecked). */
export type AnyNotices = Record<string, unknown>;

/** One notice of map `N` as a client receives it: its type and payload, a union over the types (`type` narrows it). */
export type Notice<N> = {
  [K in keyof N & string]: {
    /** The notice type. */
    type: K;
    /** Its payload. */
    data: N[K];
  };
}[keyof N & string];

/**
 * A declaration's join options as a type (what {@link defineGameTypes} returns besides its
 * {@link GameTypes}): the declared fields, carried for {@link JoinOptionsOf} and
 * {@link PlayerOptionsOf}. Nothing at run time (the declaration itself is `joinOptions`).
 */
export interface JoinOptionsCarrier<F extends JoinOptionFields> {
  /** Type carrier only, never set: the declared join option fields. */
  readonly joinOptionFields?: F;
}

/**
 * What a client of game declaration `G` may send as its join options: every declared option,
 * each optional (`{}` when the game declares none); any options for a declaration not made by
 * {@link defineGameTypes}.
 */
export type JoinOptionsOf<G> = G extends {
  /** The declared fields ({@link JoinOptionsCarrier}). */
  readonly joinOptionFields?: infer F;
}
  ? unknown extends F
    ? Record<string, JoinOptionValue>
    : [keyof F] extends [never]
      ? Record<string, never>
      : JoinOptionsInput<F>
  : Record<string, JoinOptionValue>;
/** What the game of declaration `G` gets as `Player.options`: checked, defaults filled in. */
export type PlayerOptionsOf<G> = G extends {
  /** The declared fields ({@link JoinOptionsCarrier}). */
  readonly joinOptionFields?: infer F;
}
  ? unknown extends F
    ? JoinOptionValues
    : PlayerOptions<F>
  : JoinOptionValues;

/** The input type of game declaration `G`. */
export type InputOf<G extends AnyGameTypes> = G extends GameTypes<infer I, any, any, any, any> ? I : never;
/** The event type of game declaration `G`. */
export type EventOf<G extends AnyGameTypes> = G extends GameTypes<any, infer E, any, any, any> ? E : never;
/** The state type of game declaration `G` (what its connection's `state` events carry). */
export type StateOf<G extends AnyGameTypes> = G extends GameTypes<any, any, infer S, any, any> ? S : never;

/** What {@link defineGameTypes} takes for a binary room with an entity schema. */
export interface BinaryGameSpec<I, E, D extends SchemaDecl, M = {}, V extends EventDecl = {}, N = {}, SI = never, J extends JoinOptionFields = {}> {
  /** The room kind. */
  kind: string;
  /**
   * The room's entity schema (and its declared events and inputs); the client state is its
   * {@link ClientView}, the input its declared one when it declares inputs.
   */
  schema: Schema<D, V, SI>;
  /**
   * Encodes one input with `w` (reset it first) and returns the bytes: the game's own codec, for
   * a schema that declares no inputs. A schema that declares them is encoded by its declaration
   * (`InputSchema.encode`); a codec given beside it is a type error ({@link InputCodec}).
   */
  encodeInput?(input: I, w: BinaryWriter): Uint8Array;
  /**
   * Decodes one event body (valid only during the call); null for a kind not known. Only for
   * events of the game's own bytes: without it, events are the schema's declared ones, or the
   * raw bytes when it declares none.
   */
  decodeEvent?(body: Uint8Array): E | null;
  /** The game's custom room messages, as types ({@link defineMessages}). */
  messages?: MessageTypes<M>;
  /** The game's notices, as types ({@link defineNotices}). */
  notices?: NoticeTypes<N>;
  /** The game's join options ({@link defineJoinOptions}); the same constant as its `GameDefinition.joinOptions`. */
  joinOptions?: JoinOptionsDecl<J>;
}

/** What {@link defineGameTypes} takes for a JSON text-mode room. */
export interface JsonGameSpec<I, E, M = {}, N = {}, J extends JoinOptionFields = {}> {
  /** The room kind. */
  kind: string;
  /**
   * Marks the JSON room with the dialect its clients speak: `jsonDialect` (named here, so only
   * JSON games' pages bundle JSON decoding).
   */
  json: JsonDialect;
  /** Turns an input into the JSON value sent; default: the input itself. */
  encodeInput?(input: I): unknown;
  /** Checks or converts one event value; null for a kind not known. Default: the value as is. */
  decodeEvent?(body: unknown): E | null;
  /** The game's custom room messages, as types ({@link defineMessages}). */
  messages?: MessageTypes<M>;
  /** The game's notices, as types ({@link defineNotices}). */
  notices?: NoticeTypes<N>;
  /** The game's join options ({@link defineJoinOptions}); the same constant as its `GameDefinition.joinOptions`. */
  joinOptions?: JoinOptionsDecl<J>;
}

/**
 * Where a binary game's input codec comes from: its own `encodeInput` when the schema declares no
 * inputs (`SI` is `never`), the declaration otherwise (then `encodeInput` may not be given).
 */
export type InputCodec<I, SI> = [SI] extends [never]
  ? {
      /** The game's own codec: required when the schema declares no inputs. */
      encodeInput(input: I, w: BinaryWriter): Uint8Array;
    }
  : {
      /** Not given: the schema's declared inputs encode. */
      encodeInput?: undefined;
    };

/**
 * The second step of {@link defineGameTypes}: takes the spec, infers the schema, and returns the
 * declaration. Binary specs get the schema's {@link ClientView} as their state type, and its
 * declared events as their event type unless `E` was given; JSON specs the `S` given to
 * `defineGameTypes`.
 */
export interface GameTypesBuilder<I, E, S> {
  /** A binary room with an entity schema. */
  <D extends SchemaDecl, V extends EventDecl = {}, M extends MessageShapes<M> = {}, N = {}, SI = never, J extends JoinOptionFields = {}>(
    spec: BinaryGameSpec<I, E, D, M, V, N, SI, J> & InputCodec<I, SI>,
  ): GameTypes<[SI] extends [never] ? I : SI, [E] extends [never] ? DeclaredEvent<V> : E, ClientView<D>, M, N> & JoinOptionsCarrier<J>;
  /** A JSON text-mode room. */
  <M extends MessageShapes<M> = {}, N = {}, J extends JoinOptionFields = {}>(spec: JsonGameSpec<I, E, M, N, J>): GameTypes<I, E, S, M, N> & JoinOptionsCarrier<J>;
}

const passThrough = (v: unknown): unknown => v;

/** The event decoder of a binary declaration: the game's own, else its schema's declared events, else none. */
function binaryEvents(spec: BinaryGameSpec<unknown, unknown, SchemaDecl, {}, EventDecl, {}, unknown>): (body: unknown) => unknown {
  const events = spec.schema.events;
  return (spec.decodeEvent ?? (events ? declaredEventDecoder(events) : passThrough)) as (body: unknown) => unknown;
}

/**
 * Declares a game's client-facing types: `defineGameTypes<Input>()({ kind, schema, encodeInput })`
 * for a binary room (the state type comes from the schema, the event type from its declared
 * events), or `defineGameTypes<Input, Event, View>()({ kind, json: jsonDialect })` for a JSON room. Two
 * steps so the input type is written once while the schema's types are still inferred. A binary
 * room whose events are bytes of its own gives `Event` and a `decodeEvent`. A binary room whose
 * schema declares its inputs (`defineSchema(types, { inputs: defineInput({ … }) })`) gives
 * neither `Input` nor `encodeInput`: both come from the declaration.
 *
 * @example
 * ```ts
 * export const tagGame = defineGameTypes<TagInput>()({
 *   kind: "tag", schema: tagSchema, encodeInput: (i, w) => encodeTagInput(w, i),
 * });
 * // client: const room = connect(url, { game: tagGame, room: "r1" }); room.sendInput({ dx: 1, dy: 0 });
 *
 * // declared inputs: the codec, the input type and the room's checks from one declaration
 * const steerSchema = defineSchema(types, { inputs: defineInput({ dx: quant(-1, 1, 1 / 127), dy: quant(-1, 1, 1 / 127), boost: bool() }) });
 * export const steerGame = defineGameTypes()({ kind: "steer", schema: steerSchema });
 * // client: room.sendInput({ dx: 0.5, dy: -1, boost: false }) sends 3 bytes
 * ```
 *
 * @throws TypeError for a binary room with neither an `encodeInput` nor declared inputs (a type
 * error too, as is giving both).
 */
export function defineGameTypes<I, E = never, S = unknown>(): GameTypesBuilder<I, E, S> {
  return ((spec: BinaryGameSpec<I, E, SchemaDecl, {}, EventDecl, {}, unknown> | JsonGameSpec<I, E>): GameTypes<I, E, unknown> => {
    if ("schema" in spec) {
      // The spec's own fields (kind, schema, encodeInput, joinOptions; messages and notices are
      // empty carriers) as they are.
      return {
        ...spec,
        json: false,
        dialect: binaryDialect,
        encodeInput: spec.encodeInput ?? (spec.schema.inputs!.encode as GameTypes<I>["encodeInput"]),
        decodeEvent: binaryEvents(spec as BinaryGameSpec<unknown, unknown, SchemaDecl, {}, EventDecl, {}, unknown>) as (body: unknown) => E | null,
      };
    }
    return {
      ...spec,
      schema: null,
      json: true,
      dialect: spec.json,
      encodeInput: spec.encodeInput ?? passThrough,
      decodeEvent: (spec.decodeEvent ?? passThrough) as (body: unknown) => E | null,
    };
  }) as GameTypesBuilder<I, E, S>;
}
