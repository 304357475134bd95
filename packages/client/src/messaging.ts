import {
  MAX_MESSAGE_PAYLOAD_CHARS,
  RequestError,
  errorName,
  isMessageType,
  readAnswer,
  requestsOf,
  type MessageName,
  type MessageRequest,
  type MessageResponse,
  type RequestDialect,
} from "@tikron/protocol";
import type { RoomConnection } from "./roomConnection";

/**
 * What {@link withMessages} adds to a connection: custom room messages and requests, typed by the
 * game's declaration (its `messages`), and the room's `tk:stats` snapshot.
 */
export interface RoomMessaging<M> {
  /**
   * Sends a custom room message that wants no answer (chat, ready) and says whether it went out:
   * false, sending nothing, while not joined. `type` must be one of the game's message names and
   * `payload` that message's request. The room refuses it with an `error` event (`rate_limited`,
   * `bad_message`, …).
   *
   * @throws RequestError (`message_too_large`, `bad_message`) when the payload's JSON is over
   * MAX_MESSAGE_PAYLOAD_CHARS or the type is not a legal name; TypeError when it is not JSON-able.
   */
  send<K extends MessageName<M>>(type: K, payload: MessageRequest<M, K>): boolean;
  /**
   * Sends a custom room message and resolves with the room's reply, typed by the game's
   * declaration (the message's `response`). Rejects with a {@link RequestError}: the room's
   * refusal (`code` = its error name, e.g. `rate_limited` with `retryAfterMs`), `timeout` after
   * `timeoutMs`, `closed` when the socket closes first (a reply cannot arrive on the next one),
   * `not_joined`, or `message_too_large` / `bad_message` found before sending.
   */
  request<K extends MessageName<M>>(type: K, payload: MessageRequest<M, K>, timeoutMs?: number): Promise<MessageResponse<M, K>>;
  /**
   * Asks the room for its `tk:stats` snapshot. Rejects with a {@link RequestError}: `not_joined`,
   * `timeout` after `timeoutMs` (default 5000), or `closed` when the socket closes first.
   */
  requestStats(timeoutMs?: number): Promise<unknown>;
}

/**
 * Gives `conn` room messages and requests ({@link RoomMessaging}: `send`, `request`,
 * `requestStats`) and returns it, typed by its game's messages. A page that never talks to its
 * room beyond inputs leaves this out and bundles none of it. Calling it again on the same
 * connection returns it as it is.
 *
 * @example
 * ```ts
 * const room = withMessages(connect(url, { game: lobbyGame, room: "r1" }));
 * const { ready, of } = await room.request("ready", { ready: true });
 * ```
 */
export function withMessages<S, I, E, M, N>(conn: RoomConnection<S, I, E, M, N>): RoomConnection<S, I, E, M, N> & RoomMessaging<M> {
  const c = conn as RoomConnection<S, I, E, M, N> & RoomMessaging<M>;
  if (c._answers) return c;
  // Each open request is the one function that ends it (its timer cleared, its promise settled).
  const open = new Map<number, (value: unknown, error?: Error) => void>();
  let nextId = 1;
  const settle = (id: number, value: unknown, error?: Error): void => {
    open.get(id)?.(value, error);
    open.delete(id);
  };
  c._answers = {
    read: readAnswer,
    take: (m) =>
      m.kind === "stats" ? settle(m.requestId, m.stats) : settle(m.requestId, m.value, m.code ? new RequestError(errorName(m.code), m.reason, m.retryAfterMs) : undefined),
  };
  // An answer can only come on the socket that asked: every close fails what is open.
  c.on("close", (e) => {
    const error = new RequestError("closed", e.willReconnect ? `socket closed (${e.code})` : `connection closed (${e.code} ${e.reason})`);
    for (const id of open.keys()) settle(id, undefined, error);
  });
  // A payload that cannot be sent (encode throws) rejects at once and leaves nothing waiting.
  const ask = (timeoutMs: number, what: string, encode: (d: RequestDialect, id: number) => string | Uint8Array): Promise<any> =>
    new Promise((resolve, reject) => {
      if (c.status !== "joined") throw new RequestError("not_joined", "not joined");
      const id = nextId++;
      c._send((d) => encode(requestsOf(d), id));
      const timer = setTimeout(() => settle(id, undefined, new RequestError("timeout", `${what} timed out after ${timeoutMs} ms`)), timeoutMs);
      open.set(id, (value, error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(value);
      });
    });
  c.send = (type, payload) => {
    // Checked before the status: a payload that can never go out says so at once.
    const json = messageJson(type, payload);
    return c._send((d) => requestsOf(d).message(0, type, json));
  };
  c.request = (type, payload, timeoutMs = 5000) => ask(timeoutMs, `request ${type}`, (d, id) => d.message(id, type, messageJson(type, payload)));
  c.requestStats = (timeoutMs = 5000) => ask(timeoutMs, "stats request", (d, id) => d.statsRequest(id));
  return c;
}

/** A room message's payload as JSON text, checked against the protocol's limits before anything is sent. */
export function messageJson(type: string, payload: unknown): string {
  if (!isMessageType(type)) throw new RequestError("bad_message", `bad message type ${JSON.stringify(type)}`);
  const json = JSON.stringify(payload ?? null);
  if (json.length > MAX_MESSAGE_PAYLOAD_CHARS) {
    throw new RequestError("message_too_large", `payload of ${json.length} chars exceeds ${MAX_MESSAGE_PAYLOAD_CHARS}`);
  }
  return json;
}
