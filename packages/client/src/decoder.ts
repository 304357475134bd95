/** What the connection tells a decoder when a (re)join starts a fresh state stream. */
export interface DecoderResetInfo {
  /** The room's schema hash from the welcome (0 in JSON rooms). */
  schemaHash: number;
  /** True for JSON rooms: `apply` then receives parsed JSON values, not bytes. */
  json: boolean;
  /** True when the welcome restored a held seat. */
  reconnected: boolean;
}

/**
 * Turns the state stream of one connection into game state. The server starts every client,
 * and every reconnect, from an empty baseline, so the connection calls {@link reset} on each
 * welcome and then {@link apply} for each frame's state section, in order.
 *
 * Binary rooms: `apply` receives the FRAME's delta bytes (a view valid only during the call; copy
 * what must be kept). JSON rooms: `apply` receives the `state` value of a JSON state message.
 */
export interface StateDecoder<S = unknown> {
  /**
   * When set, the connection compares it with the welcome's schema hash and refuses to run a
   * mismatched decoder (error `schema_mismatch`, then close without reconnect).
   */
  readonly schemaHash?: number;
  /** Drops all state: the next `apply` starts from an empty baseline. */
  reset(info: DecoderResetInfo): void;
  /** Applies one state section. Throwing reports a local `bad_frame` error and closes the socket. */
  apply(body: Uint8Array | unknown): void;
  /** The decoded state after the last `apply` (what `state` events carry). */
  readonly state: S;
  /** Decodes one event body (bytes in binary rooms, a JSON value in JSON rooms). Default: as is. */
  decodeEvent?(body: Uint8Array | unknown): unknown;
}

/** A decoder whose state is what `keep` makes of the latest body (`empty` after a reset). */
function latestBody<S>(keep: (body: unknown) => S, empty: S): StateDecoder<S> {
  let last = empty;
  return {
    reset() {
      last = empty;
    },
    apply(body) {
      last = keep(body);
    },
    get state() {
      return last;
    },
  };
}

/**
 * Default decoder for binary rooms without a schema decoder: the state is the latest delta body
 * itself (a copy, since bodies are views into the received message).
 */
export function rawDeltaDecoder(): StateDecoder<Uint8Array | null> {
  return latestBody((body) => (body instanceof Uint8Array ? body.slice() : null), null);
}

/** Default decoder for JSON rooms: each state message carries the whole view, so keep the latest. */
export function jsonStateDecoder<S = unknown>(): StateDecoder<S | undefined> {
  return latestBody((body) => body as S, undefined);
}
