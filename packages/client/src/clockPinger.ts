import type { ClockSync } from "./clockSync";

/** Spacing of the quick pings right after a welcome (ms). */
const PING_BURST_SPACING_MS = 100;

/**
 * Feeds {@link ClockSync} with round trips: a short burst of pings right after each welcome (a
 * quick first estimate for interpolation and shot timestamps), then one every `intervalMs`
 * (which the owner may send as a keepalive instead: see `sendPing`'s `inBurst`).
 */
export class ClockPinger {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #burstLeft = 0;
  readonly #clock: ClockSync;
  readonly #now: () => number;
  readonly #sendPing: (clientTime: number, inBurst: boolean) => void;
  readonly #active: () => boolean;
  readonly #burst: number;
  readonly #intervalMs: number;

  /**
   * `sendPing` sends one ping stamped with local time `clientTime` and is called only while
   * `active()` (false once the seat is lost: pings stop until the next {@link start});
   * `inBurst` is true for the quick pings after a welcome, false for the periodic ones.
   */
  constructor(
    clock: ClockSync,
    now: () => number,
    sendPing: (clientTime: number, inBurst: boolean) => void,
    active: () => boolean,
    burst: number,
    intervalMs: number,
  ) {
    this.#clock = clock;
    this.#now = now;
    this.#sendPing = sendPing;
    this.#active = active;
    this.#burst = burst;
    this.#intervalMs = intervalMs;
  }

  /** Starts a fresh burst (call on every welcome). */
  start(): void {
    this.#burstLeft = this.#burst;
    this.#schedule();
  }

  /** Stops pinging (socket gone or closed). */
  stop(): void {
    clearTimeout(this.#timer);
  }

  /**
   * Takes a pong. `socketStartedAt` is when the current socket's attempt began: a pong to a ping
   * of an earlier socket did not travel one round trip on this one, so it is ignored.
   */
  pong(clientTime: number, serverTime: number, socketStartedAt: number): void {
    if (clientTime < socketStartedAt) return;
    this.#clock.addSample(clientTime, serverTime, this.#now());
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#tick, this.#burstLeft > 0 ? PING_BURST_SPACING_MS : this.#intervalMs);
  }

  readonly #tick = (): void => {
    if (!this.#active()) return;
    this.#sendPing(this.#now(), this.#burstLeft > 0);
    if (this.#burstLeft > 0) this.#burstLeft--;
    this.#schedule();
  };
}
