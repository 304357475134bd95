import type { ReconnectPolicy } from "./reconnect";
import type { CloseInfo } from "./roomEvents";
import { closeQuietly, unwatchSocket, watchSocket, type WebSocketConstructor, type WebSocketLike } from "./socket";

type Timer = ReturnType<typeof setTimeout>;

/** What {@link SocketAttempts} reports to the connection that owns it. */
export interface AttemptListener {
  /** The current socket opened: time to say hello. */
  opened(): void;
  /** A message arrived on the current socket. */
  message(data: unknown): void;
  /** The socket is gone and another attempt follows after `delayMs` (`attempt` counts retries). */
  retrying(code: number, reason: string, attempt: number, delayMs: number): void;
  /** No further attempt: the connection is over. */
  ended(info: CloseInfo): void;
  /** Something went wrong on our side (ticket fetch, URL); reported as a local error. */
  localError(name: string, reason: string): void;
}

/** Where and how {@link SocketAttempts} connects. */
export interface AttemptOptions {
  Impl: WebSocketConstructor;
  /** The socket URL for a ticket (undefined without one). */
  url(ticket: string | undefined): string;
  /** A fixed ticket, or a function called before every attempt (fresh single-use tickets). */
  ticket: string | (() => string | Promise<string>) | undefined;
  /** An attempt not welcomed this long after it started is abandoned (ms). */
  connectTimeoutMs: number;
  now: () => number;
}

/**
 * The socket side of a connection: one attempt at a time (ticket → socket → open), a timeout on
 * attempts that are never welcomed, and after every loss the {@link ReconnectPolicy}'s answer:
 * another attempt after a backoff delay, or the end. The protocol (hello, welcome, frames) is
 * the owner's business; this class only knows sockets, timers and the policy.
 */
export class SocketAttempts {
  /** The current socket, or null between attempts. */
  socket: WebSocketLike | null = null;
  /** Local time the current attempt began: pongs to pings sent before it are not round trips. */
  startedAt = 0;
  #retryAfterMs = 0;
  #tokenRejected = false;
  #stopped = false;
  /** Bumped by every {@link stop}: an attempt still fetching its ticket from before is dropped. */
  #generation = 0;
  #connectTimer: Timer | undefined;
  #retryTimer: Timer | undefined;
  #stableTimer: Timer | undefined;

  readonly #options: AttemptOptions;
  readonly #policy: ReconnectPolicy;
  readonly #listener: AttemptListener;

  constructor(options: AttemptOptions, policy: ReconnectPolicy, listener: AttemptListener) {
    this.#options = options;
    this.#policy = policy;
    this.#listener = listener;
  }

  /** True once {@link stop} ran: nothing more will be attempted. */
  get isStopped(): boolean {
    return this.#stopped;
  }

  /** Starts an attempt now. */
  async open(): Promise<void> {
    const generation = this.#generation;
    clearTimeout(this.#retryTimer);
    this.#retryAfterMs = 0;
    this.#tokenRejected = false;
    this.startedAt = this.#options.now();
    let ticket: string | undefined;
    const t = this.#options.ticket;
    if (typeof t === "function") {
      try {
        ticket = await t();
      } catch (e) {
        if (this.#stopped || generation !== this.#generation) return;
        this.#listener.localError("ticket_failed", `ticket: ${String(e)}`);
        this.#gone(1006, "ticket unavailable");
        return;
      }
      if (this.#stopped || generation !== this.#generation) return;
    } else {
      ticket = t;
    }
    let ws: WebSocketLike;
    try {
      ws = new this.#options.Impl(this.#options.url(ticket));
    } catch (e) {
      // A malformed URL never becomes valid: report and stop.
      this.#listener.localError("bad_url", String(e));
      this.end({ code: 1006, reason: "could not create socket", willReconnect: false, deliberate: false });
      return;
    }
    this.socket = ws;
    // Handlers check identity: a replaced socket's late events must not reach the owner.
    watchSocket(ws, {
      open: () => {
        if (this.socket === ws) this.#listener.opened();
      },
      message: (data) => {
        if (this.socket === ws) this.#listener.message(data);
      },
      close: (code, reason) => {
        if (this.socket !== ws) return;
        this.#detach(ws);
        this.#gone(code, reason);
      },
    });
    this.#connectTimer = setTimeout(() => {
      if (this.socket === ws) this.abandon(1006, "connect timeout");
    }, this.#options.connectTimeoutMs);
  }

  /** The current attempt was welcomed: no timeout for it, and a stable stay resets the backoff. */
  welcomed(): void {
    clearTimeout(this.#connectTimer);
    clearTimeout(this.#stableTimer);
    this.#stableTimer = setTimeout(() => this.#policy.markStable(), this.#policy.stableAfterMs);
  }

  /** The server asked for a pause before the next attempt (an ERROR with `retryAfterMs`). */
  noteRetryAfter(ms: number): void {
    if (ms > this.#retryAfterMs) this.#retryAfterMs = ms;
  }

  /** The server refused our reconnect token: the next attempt joins as a new player. */
  noteTokenRejected(): void {
    this.#tokenRejected = true;
  }

  /** Drops the current socket from our side and handles it as closed with `code`. */
  abandon(code: number, reason: string): void {
    const ws = this.socket;
    if (!ws) return;
    this.#detach(ws);
    closeQuietly(ws, code >= 4000 ? code : 1000, reason);
    this.#gone(code, reason);
  }

  /** Ends deliberately: closes the socket (1000) and cancels any pending attempt. */
  stop(): void {
    this.#stopped = true;
    this.#generation++;
    this.#clearTimers();
    clearTimeout(this.#retryTimer);
    const ws = this.socket;
    if (ws) {
      this.#detach(ws);
      closeQuietly(ws, 1000, "client closed");
    }
  }

  /**
   * Starts over after {@link stop} (a reconnect by hand, or a switch of rooms): a fresh backoff,
   * then an attempt now. `ticket`, when given, replaces the ticket option.
   */
  restart(ticket?: AttemptOptions["ticket"]): void {
    if (ticket !== undefined) this.#options.ticket = ticket;
    this.#stopped = false;
    this.#policy.markStable();
    void this.open();
  }

  /** Ends for good and tells the owner (a deliberate close or an unrecoverable one). */
  end(info: CloseInfo): void {
    this.#clearTimers();
    this.#listener.ended(info);
  }

  #detach(ws: WebSocketLike): void {
    unwatchSocket(ws);
    if (this.socket === ws) this.socket = null;
  }

  #gone(code: number, reason: string): void {
    this.socket = null;
    this.#clearTimers();
    if (this.#stopped) return;
    const decision = this.#policy.onClose(code, { retryAfterMs: this.#retryAfterMs, tokenRejected: this.#tokenRejected });
    if (!decision.reconnect) {
      this.end({ code, reason, willReconnect: false, deliberate: false });
      return;
    }
    this.#listener.retrying(code, reason, decision.attempt, decision.delayMs);
    // A listener may have stopped everything (close() from a close handler): then nothing is scheduled.
    if (this.#stopped) return;
    this.#retryTimer = setTimeout(() => {
      if (!this.#stopped) void this.open();
    }, decision.delayMs);
  }

  #clearTimers(): void {
    clearTimeout(this.#connectTimer);
    clearTimeout(this.#stableTimer);
  }
}
