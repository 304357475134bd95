import {
  BinaryWriter,
  ClientView,
  MAX_INPUTS_PER_FRAME,
  MAX_INPUT_PAYLOAD_BYTES,
  RequestError,
  errorName,
  encodeInputs,
  isDecodeError,
  readAnswer,
  requestsOf,
  type AnyGameTypes,
  type DecodedServerMessage,
  type ErrorMessage,
  type ErrorName,
  type EventOf,
  type InputOf,
  type MessageName,
  type MessageRequest,
  type MessageResponse,
  type MessagesOf,
  type Notice,
  type NoticesOf,
  type ReplyMessage,
  type StateOf,
  type WelcomeFields,
  type JoinOptionsOf,
} from "@tikron/protocol";
import type { FakeClock, PlayerClaims, SocketRoom } from "../index";
import { TestSocket, type SocketClose } from "./testSocket";

/** How a test client joins (see `TestRoom.join`); `G` is the game's client declaration. */
export interface JoinOptions<G extends AnyGameTypes = AnyGameTypes> {
  /** Reconnect token of a held seat: another client's `token`, or one kept from a checkpointed room. */
  token?: string;
  /** A verified player id, as a host passes it from a signed join ticket (one seat per identity). */
  identity?: string;
  /**
   * The sign-in claims verified with `identity`, as a host passes them from a JWT (the claims
   * its deployment names, e.g. `{ name, roles }`): the game finds them in `Player.claims`.
   */
  claims?: PlayerClaims;
  /** The player's join options, typed by the declaration; every hello (reconnects too) carries them, as the SDK's do. */
  joinOptions?: JoinOptionsOf<G>;
  /** The peer's address, for the room's per-caller admission limits. */
  address?: string;
}

/** One state frame as a test client read it: the header, whether state changed, its decoded events. */
export interface TestFrame<E> {
  /** The room's tick the frame was flushed at. */
  tick: number;
  /** Room time (ms since the room's epoch) of that tick. */
  time: number;
  /** Highest input seq the room had processed, or -1 when the frame carries no ack. */
  ackSeq: number;
  /** True when the frame carried a state section (a delta, or a JSON view). */
  changed: boolean;
  /** The frame's events, decoded by the declaration's `decodeEvent` (null results dropped). */
  events: E[];
  /** Its size on the wire: bytes of a binary frame, UTF-16 units of a JSON one (the room's own measure). */
  bytes: number;
}

/** What a test client needs of its room: the real room (or a relay in front of one), and the clock receipts are timed on. */
export interface TestClientHost {
  /** Where the client's sockets are opened: a room, or a relay of a relayed room. */
  readonly room: SocketRoom;
  /** The room's clock. */
  readonly clock: FakeClock;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * One player in a {@link TestRoom}, speaking the game's declaration (`defineGameTypes`) the way
 * the SDK's `connect({ game })` does: inputs go through the declaration's `encodeInput`, events
 * come out of its `decodeEvent`, and state is read through the real decoder (the schema's
 * `ClientView` in binary rooms, the latest view in JSON rooms), reset on every welcome. It sees
 * what the room really sent over its in-memory socket: frames, errors, replies, notices and the close.
 *
 * Everything is synchronous except {@link request} (a promise, as in the SDK). Messages are read
 * when the test looks (every getter reads what arrived), so a message the client cannot decode
 * throws from the test's own call, never inside the room; after that the client stays broken.
 */
export class TestClient<G extends AnyGameTypes> {
  /** The display name its hellos carry (and error messages name it by). */
  readonly name: string;
  /** How errors name this client. */
  readonly #label: string;
  readonly #host: TestClientHost;
  readonly #types: G;
  /** The game's input codec writes here, and input batches (the dialect writes the rest). */
  readonly #writer = new BinaryWriter(64);
  readonly #view: ClientView | null;
  readonly #options: JoinOptions<G>;
  #socket: TestSocket;
  #closeSeen = false;
  #seq = 0;
  #nextRequestId = 1;
  readonly #pending = new Map<number, Pending>();
  #welcome: WelcomeFields | undefined;
  #jsonState: unknown = undefined;
  #ackSeq = -1;
  #fault: Error | null = null;
  readonly #frames: TestFrame<EventOf<G>>[] = [];
  readonly #events: EventOf<G>[] = [];
  readonly #errors: NamedError[] = [];
  readonly #notices: Notice<NoticesOf<G>>[] = [];
  readonly #messages: DecodedServerMessage[] = [];
  readonly #raw: (Uint8Array | string)[] = [];

  /**
   * Opens a socket on `host`'s room and says hello as `name`. Use `TestRoom.join`.
   *
   * @throws Error when the room's admission refuses the socket before it opens (a host would
   * answer HTTP 429 or 503 then; see `Room.admitSocket`).
   */
  constructor(host: TestClientHost, types: G, name: string, options: JoinOptions<G> = {}) {
    this.name = name;
    this.#label = name || "a client without a name";
    this.#host = host;
    this.#types = types;
    this.#options = options;
    this.#view = types.schema ? new ClientView(types.schema) : null;
    this.#socket = this.#open(options.token ?? "");
  }

  // ---- what arrived ---------------------------------------------------------------------

  /** The welcome of the current seat (undefined until seated); its rates follow later CADENCE messages. */
  get welcome(): WelcomeFields | undefined {
    this.receive();
    return this.#welcome;
  }

  /** The seat's player id. @throws Error when the client has not been seated. */
  get playerId(): number {
    return this.#seated().playerId;
  }

  /** The seat's reconnect token (what {@link reconnect} and `JoinOptions.token` take). @throws Error when not seated. */
  get token(): string {
    return this.#seated().token;
  }

  /**
   * The state this client sees, typed by the declaration: the schema's live `ClientView` in
   * binary rooms (updated in place, emptied on each welcome), the latest view in JSON rooms
   * (undefined before the first).
   */
  get state(): StateOf<G> {
    this.receive();
    return (this.#view ?? this.#jsonState) as StateOf<G>;
  }

  /** Every event received, decoded, in the order the room sent them (across reconnects). */
  get events(): readonly EventOf<G>[] {
    this.receive();
    return this.#events;
  }

  /** Every state frame received, in order (across reconnects). */
  get frames(): readonly TestFrame<EventOf<G>>[] {
    this.receive();
    return this.#frames;
  }

  /** Every notice the room's game sent this client (`ctx.send` / `ctx.broadcast`), typed by the declaration, in order. */
  get notices(): readonly Notice<NoticesOf<G>>[] {
    this.receive();
    return this.#notices;
  }

  /** Every ERROR the room sent (refused inputs, protocol errors, throttles), in order, each with its code's name. */
  get errors(): readonly NamedError[] {
    this.receive();
    return this.#errors;
  }

  /** Every message received, decoded (welcomes, frames, errors, replies, pongs, stats), in order. */
  get messages(): readonly DecodedServerMessage[] {
    this.receive();
    return this.#messages;
  }

  /**
   * Every message received as it arrived (a copy of the bytes, or the text), in order, across
   * reconnects: what a replay's frames are compared with byte for byte.
   */
  get raw(): readonly (Uint8Array | string)[] {
    this.receive();
    return this.#raw;
  }

  /** The highest input seq the room acknowledged (-1 before any ack). */
  get ackSeq(): number {
    this.receive();
    return this.#ackSeq;
  }

  /** The last input seq sent (0 before any); seqs go on above the welcome's `lastSeq` after a reconnect. */
  get seq(): number {
    return this.#seq;
  }

  /** How the current socket ended (the room's close code and reason), or null while it is open. */
  get closed(): SocketClose | null {
    this.receive();
    return this.#socket.closed;
  }

  /** The room's id for the current socket (what a host passes to `Room.message` and `Room.closed`). */
  get connId(): number {
    return this.#socket.connId;
  }

  /**
   * Reads what arrived since the last read, in order. Every getter does it, and the room does it
   * for all its clients after `advance` and `settle`.
   *
   * @throws Error when the room sent something this client cannot decode (a malformed message,
   * a delta its view refuses, a schema other than the declaration's); the client stays broken.
   */
  receive(): void {
    if (this.#fault) throw this.#fault;
    const socket = this.#socket;
    for (const data of socket.inbox.splice(0)) {
      const m = this.#types.dialect.decode(data, readAnswer)!;
      if (isDecodeError(m)) this.#fail(`a message does not decode (${m.code}: ${m.message})`);
      this.#raw.push(data);
      this.#messages.push(m);
      if (m.kind === "welcome") this.#onWelcome(m);
      else if (m.kind === "frame") this.#onFrame(m, data.length);
      else if (m.kind === "error") this.#errors.push({ ...m, name: errorName(m.code) });
      else if (m.kind === "reply") this.#onReply(m);
      // The room's new rates: the welcome's copy follows them, as the SDK's does.
      else if (m.kind === "cadence" && this.#welcome) this.#welcome = { ...this.#welcome, tickMs: m.tickMs, syncIntervalMs: m.syncIntervalMs };
      else if (m.kind === "notice") this.#notices.push({ type: m.type, data: m.data } as Notice<NoticesOf<G>>);
    }
    if (socket.closed && !this.#closeSeen) {
      this.#closeSeen = true;
      const { code, reason } = socket.closed;
      for (const p of this.#pending.values()) p.reject(new RequestError("closed", `the socket closed (${code} ${reason}) before the answer`));
      this.#pending.clear();
    }
  }

  // ---- what the client says -------------------------------------------------------------

  /**
   * Sends inputs, encoded by the declaration's `encodeInput`, with the next seqs: in binary rooms
   * in one INPUT frame (16 per frame), in JSON rooms one message each. Returns the last seq.
   *
   * @throws Error when the socket is closed; TypeError or RangeError when the codec's payload is
   * not bytes of at most MAX_INPUT_PAYLOAD_BYTES in a binary room (what the SDK refuses too).
   */
  input(...inputs: InputOf<G>[]): number {
    const payloads = inputs.map((input) => {
      const p = this.#types.encodeInput(input, this.#writer);
      if (this.#types.json) return p;
      if (!(p instanceof Uint8Array)) throw new TypeError(`${this.#label}: encodeInput must return bytes in a binary room`);
      if (p.length > MAX_INPUT_PAYLOAD_BYTES) throw new RangeError(`${this.#label}: input payload of ${p.length} bytes exceeds ${MAX_INPUT_PAYLOAD_BYTES}`);
      return p.slice();
    });
    return this.inputPayloads(...payloads);
  }

  /**
   * Sends input payloads as they are, bypassing the codec (bytes in binary rooms, any JSON value
   * in JSON rooms): for inputs the page could never produce, which the room must refuse.
   * Returns the last seq.
   *
   * @throws Error when the socket is closed; TypeError for a payload that is not bytes in a binary room.
   */
  inputPayloads(...payloads: unknown[]): number {
    this.#assertOpen("send inputs");
    if (!this.#types.json && !payloads.every((p) => p instanceof Uint8Array)) throw new TypeError(`${this.#label}: binary input payloads are Uint8Arrays`);
    const { dialect } = this.#types;
    if (dialect.json) {
      for (const payload of payloads) this.#post(dialect.input(++this.#seq, payload));
      return this.#seq;
    }
    // As the SDK batches them: INPUT frames of up to MAX_INPUTS_PER_FRAME entries each.
    for (let i = 0; i < payloads.length; i += MAX_INPUTS_PER_FRAME) {
      const chunk = payloads.slice(i, i + MAX_INPUTS_PER_FRAME).map((payload) => ({ seq: ++this.#seq, payload: payload as Uint8Array }));
      this.#post(encodeInputs(this.#writer.reset(), chunk).toBytes());
    }
    return this.#seq;
  }

  /**
   * Sends a room message that wants no answer, typed by the declaration's messages. A refusal
   * arrives as an ERROR ({@link errors}).
   *
   * @throws Error when the socket is closed; TypeError when the payload is not JSON-able.
   */
  send<K extends MessageName<MessagesOf<G>>>(type: K, payload: MessageRequest<MessagesOf<G>, K>): void {
    this.#assertOpen(`send ${type}`);
    this.#post(requestsOf(this.#types.dialect).message(0, type, jsonOf(payload)));
  }

  /**
   * Sends a room message and resolves with the room's answer, typed by the declaration. Rejects
   * with the protocol's `RequestError`, as the SDK does: the room's refusal (`code` = its error
   * name), or `closed` when the socket closes first. The room answers on arrival, so the promise is settled when
   * this returns; await it (or `expect(...).rejects`), since an unawaited refusal is an
   * unhandled rejection.
   *
   * @throws Error when the socket is closed; TypeError when the payload is not JSON-able.
   */
  request<K extends MessageName<MessagesOf<G>>>(type: K, payload: MessageRequest<MessagesOf<G>, K>): Promise<MessageResponse<MessagesOf<G>, K>> {
    this.#assertOpen(`request ${type}`);
    const data = requestsOf(this.#types.dialect).message(this.#nextRequestId, type, jsonOf(payload));
    const id = this.#nextRequestId++;
    const answer = new Promise<unknown>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#post(data);
    return answer as Promise<MessageResponse<MessagesOf<G>, K>>;
  }

  /** Sends one message exactly as given (hostile frames, pings, stats requests). @throws Error when the socket is closed. */
  sendRaw(data: Uint8Array | string): void {
    this.#assertOpen("send");
    this.#post(data);
  }

  /** Leaves the room: the seat is freed at once and the room closes the socket (1000). */
  leave(): void {
    this.#assertOpen("leave");
    this.#post(this.#types.dialect.leave());
  }

  /**
   * The network drops the socket (the room hears a close it did not send): the seat is held for
   * the reconnection window. Nothing happens when the socket is already closed.
   */
  drop(code = 1006, reason = "dropped"): void {
    this.receive();
    if (this.#socket.closed) return;
    this.#socket.closed = { code, reason };
    this.#host.room.closed(this.#socket.connId, code, reason);
    this.receive();
  }

  /**
   * Drops the current socket if it is still open and joins again on a new one with the seat's
   * token, as the SDK does after a drop: the room gives the held seat back (`reconnected` in
   * the welcome), the state starts from an empty view, and seqs go on above the welcome's
   * `lastSeq`. Frames, events and errors received so far are kept.
   */
  reconnect(): this {
    this.drop();
    this.#socket = this.#open(this.#welcome?.token ?? this.#options.token ?? "");
    this.#closeSeen = false;
    return this;
  }

  // ---- inside ---------------------------------------------------------------------------

  #open(token: string): TestSocket {
    const { room, clock } = this.#host;
    const { identity, address, claims, joinOptions } = this.#options;
    const refusal = room.admitSocket(identity, address);
    if (refusal) throw new Error(`${this.#label}: the room refused the socket before it opened (${refusal.status} ${refusal.reason})`);
    const socket: TestSocket = new TestSocket((messages, units) => {
      const receipt = this.#types.dialect.receipt(messages, units);
      clock.setTimer(() => {
        if (!socket.closed) room.message(socket.connId, receipt);
      }, 0);
    });
    socket.connId = room.open(socket, identity, address, undefined, claims);
    room.message(socket.connId, this.#types.dialect.hello(token, this.name, joinOptions as object | undefined));
    return socket;
  }

  #post(data: Uint8Array | string): void {
    this.#host.room.message(this.#socket.connId, data);
    this.receive();
  }

  #assertOpen(what: string): void {
    this.receive();
    const closed = this.#socket.closed;
    if (closed) throw new Error(`${this.#label}: cannot ${what}: the socket is closed (${closed.code} ${closed.reason}); reconnect() or join again`);
  }

  #seated(): WelcomeFields {
    const welcome = this.welcome;
    if (welcome) return welcome;
    const closed = this.#socket.closed;
    throw new Error(`${this.#label} is not seated${closed ? ` (closed ${closed.code} ${closed.reason})` : ""}`);
  }

  #fail(problem: string): never {
    this.#fault = new Error(`${this.#label}: ${problem}`);
    throw this.#fault;
  }

  #onWelcome(m: Extract<DecodedServerMessage, { kind: "welcome" }>): void {
    const { kind: _kind, ...welcome } = m;
    const schema = this.#types.schema;
    if (schema && welcome.schemaHash >>> 0 !== schema.hash >>> 0) {
      this.#fail(`the room's schema (hash ${welcome.schemaHash}) is not the declaration's (hash ${schema.hash})`);
    }
    this.#welcome = welcome;
    // A fresh baseline: the room sends everything again after every welcome.
    this.#view?.clear();
    this.#jsonState = undefined;
    this.#seq = Math.max(this.#seq, welcome.lastSeq);
  }

  #onFrame(m: Extract<DecodedServerMessage, { kind: "frame" }>, bytes: number): void {
    if (m.ackSeq > this.#ackSeq) this.#ackSeq = m.ackSeq;
    if (m.hasState) {
      if (!this.#view) this.#jsonState = m.body;
      else if (m.body instanceof Uint8Array) {
        const err = this.#view.apply(m.body);
        if (err) this.#fail(`a state delta does not decode (${err.code}: ${err.message})`);
      }
    }
    const events: EventOf<G>[] = [];
    for (const body of m.events) {
      let event: EventOf<G> | null;
      try {
        event = this.#types.decodeEvent(body) as EventOf<G> | null;
      } catch (e) {
        return this.#fail(`an event does not decode (${String(e)})`);
      }
      if (event !== null) events.push(event);
    }
    this.#frames.push({ tick: m.tick, time: m.time, ackSeq: m.ackSeq, changed: m.hasState, events, bytes });
    this.#events.push(...events);
  }

  #onReply(m: ReplyMessage): void {
    const pending = this.#pending.get(m.requestId);
    if (!pending) return;
    this.#pending.delete(m.requestId);
    if (m.code === 0) pending.resolve(m.value);
    else pending.reject(new RequestError(errorName(m.code), m.reason, m.retryAfterMs));
  }
}

/** An ERROR as a test client keeps it: the decoded message and its code's name. */
export interface NamedError extends ErrorMessage {
  /** The code's name (`errorName(code)`; `unknown` for a code this side does not know). */
  name: ErrorName | "unknown";
}

/** A room message's payload as JSON text (undefined sends null, as the SDK does). */
function jsonOf(payload: unknown): string {
  const json = JSON.stringify(payload ?? null) as string | undefined;
  if (json === undefined) throw new TypeError("a room message payload must be JSON-able");
  return json;
}
