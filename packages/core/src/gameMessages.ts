import {
  isRejection,
  refuseMessage,
  type AnyGameTypes,
  type MessageName,
  type MessageRejection,
  type MessageRequest,
  type MessageResponse,
  type MessagesOf,
} from "@tikron/protocol";

/**
 * How a game answers one message type of its declaration: `check` turns the wire payload
 * (`unknown`) into the declared request or refuses it, `handle` answers the checked request.
 * Both are typed from the declaration, so a validator that yields the wrong shape, or a reply
 * that is not the declared response, does not compile.
 */
export interface MessageHandler<Q, R> {
  /** Validates the payload; return `refuseMessage("bad_message", why)` for anything else. */
  check(payload: unknown): Q | MessageRejection;
  /** Answers a checked request from `playerId`: the reply, or a refusal. */
  handle(playerId: number, request: Q): R | MessageRejection;
}

/** One {@link MessageHandler} per message type of map `M`. */
export type MessageHandlers<M> = { [K in MessageName<M>]: MessageHandler<MessageRequest<M, K>, MessageResponse<M, K>> };

/**
 * Builds a `Game.onMessage` from one handler per message type of the game's declaration `G`
 * (its `messages: defineMessages<M>()`). Types it does not list are refused `unknown_message`.
 *
 * @example
 * ```ts
 * onMessage = messageHandlers<typeof tagGame>({
 *   chat: { check: checkChat, handle: (playerId, { text }) => { this.ctx.emit(encodeChat(playerId, text)); } },
 * });
 * ```
 */
export function messageHandlers<G extends AnyGameTypes>(
  handlers: MessageHandlers<MessagesOf<G>>,
): (playerId: number, type: string, payload: unknown) => unknown {
  const table = handlers as Record<string, MessageHandler<unknown, unknown>>;
  return (playerId, type, payload) => {
    // Own keys only: a type named `constructor` or `__proto__` must not reach Object.prototype.
    if (!Object.prototype.hasOwnProperty.call(table, type)) return refuseMessage("unknown_message", `no handler for message type ${type}`);
    const h = table[type]!;
    const request = h.check(payload);
    return isRejection(request) ? request : h.handle(playerId, request);
  };
}
