import type { WebSocketConstructor, WebSocketLike } from "@tikron/client";
import { DelayLine } from "./delayLine";

/** Simulated link quality, applied on the client in both directions. */
export interface NetProfile {
  /** Added one-way delay (ms), each direction: the round trip grows by twice this. */
  delayMs: number;
  /** Extra random one-way delay, uniform in [0, jitterMs] (ms). */
  jitterMs: number;
  /** Chance (0..1) that a message is "lost" and has to wait for a retransmission. */
  loss: number;
}

/** Named profiles offered by the page (`?net=NAME` or the network menu). */
export const NET_PRESETS: Readonly<Record<string, NetProfile>> = {
  off: { delayMs: 0, jitterMs: 0, loss: 0 },
  wifi: { delayMs: 15, jitterMs: 15, loss: 0.002 },
  mobile: { delayMs: 60, jitterMs: 40, loss: 0.01 },
  bad: { delayMs: 120, jitterMs: 100, loss: 0.03 },
};

/**
 * Shortest retransmission wait of a lost message (ms); Linux' minimum TCP retransmission
 * timeout. The actual wait is the larger of this and twice the profile's one-way delay (about
 * one simulated round trip), since a sender notices a loss only a round trip later.
 */
export const MIN_RETRANSMIT_MS = 200;

/**
 * Live, switchable network conditions shared by every socket made through
 * {@link conditionedWebSocket}. Changes apply to messages sent or received from then on.
 *
 * Loss is modelled as a delay spike, not a drop: the game runs over WebSocket, i.e. TCP, where
 * a lost segment is retransmitted and everything behind it waits (head-of-line blocking).
 * Really dropping a message would be a failure the real transport cannot produce (the SDK and
 * the server would rightly treat a gap in the stream as corruption). Jitter likewise never
 * reorders messages, for the same reason.
 */
export class NetConditions {
  private profile: NetProfile;
  private presetName: string;

  /** @param random uniform [0, 1) source (injectable for tests) */
  constructor(
    initial: string | NetProfile = "off",
    private readonly random: () => number = Math.random,
  ) {
    this.profile = NET_PRESETS.off!;
    this.presetName = "off";
    this.set(initial);
  }

  /** The profile in force. */
  get current(): Readonly<NetProfile> {
    return this.profile;
  }

  /** Preset name in force, or `custom`. */
  get name(): string {
    return this.presetName;
  }

  /** True when every setting is zero (messages pass through untouched). */
  get off(): boolean {
    const p = this.profile;
    return p.delayMs <= 0 && p.jitterMs <= 0 && p.loss <= 0;
  }

  /** Switches to a preset (by name) or to explicit settings (clamped to sane ranges). */
  set(profile: string | NetProfile): void {
    if (typeof profile === "string") {
      const p = NET_PRESETS[profile];
      if (!p) throw new RangeError(`unknown network preset ${profile}`);
      this.profile = p;
      this.presetName = profile;
      return;
    }
    this.profile = {
      delayMs: clamp(profile.delayMs, 0, 5000),
      jitterMs: clamp(profile.jitterMs, 0, 5000),
      loss: clamp(profile.loss, 0, 0.5),
    };
    this.presetName = "custom";
  }

  /** One message's simulated one-way delay (ms) under the current profile. */
  sampleDelay(): number {
    const p = this.profile;
    let d = p.delayMs;
    if (p.jitterMs > 0) d += this.random() * p.jitterMs;
    if (p.loss > 0 && this.random() < p.loss) d += Math.max(MIN_RETRANSMIT_MS, 2 * p.delayMs);
    return d;
  }
}

/**
 * Parses `?net=`: a preset name, or `DELAY,JITTER,LOSS%` such as `80,20,1`. Returns null for
 * anything else, so a typo is reported instead of silently meaning "off".
 */
export function parseNetParam(text: string): string | NetProfile | null {
  if (Object.hasOwn(NET_PRESETS, text)) return text;
  const m = /^(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)(?:,(\d+(?:\.\d+)?))?$/.exec(text);
  if (!m) return null;
  return { delayMs: Number(m[1]), jitterMs: Number(m[2]), loss: Number(m[3] ?? 0) / 100 };
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

type Incoming = { kind: "open" | "message" | "close" | "error"; ev: unknown };
type Outgoing = { kind: "send"; data: string | Uint8Array } | { kind: "close"; code?: number; reason?: string };

/**
 * Wraps a WebSocket implementation so every socket it makes passes its traffic through `net`:
 * outgoing messages and incoming events (open, messages, close) are each delayed per
 * {@link NetConditions.sampleDelay}, in order. Hand the result to `connect` as `WebSocketImpl`.
 */
export function conditionedWebSocket(Base: WebSocketConstructor, net: NetConditions): WebSocketConstructor {
  return class ConditionedWebSocket implements WebSocketLike {
    onopen: ((ev: any) => void) | null = null;
    onmessage: ((ev: any) => void) | null = null;
    onclose: ((ev: any) => void) | null = null;
    onerror: ((ev: any) => void) | null = null;
    private readonly inner: WebSocketLike;
    private state = CONNECTING;
    private readonly incoming: DelayLine<Incoming>;
    private readonly outgoing: DelayLine<Outgoing>;

    constructor(url: string) {
      this.inner = new Base(url);
      this.incoming = new DelayLine((m) => this.receive(m));
      this.outgoing = new DelayLine((m) => this.transmit(m));
      const inbound = (kind: Incoming["kind"]) => (ev: unknown) => this.incoming.push({ kind, ev }, net.off ? 0 : net.sampleDelay());
      this.inner.onopen = inbound("open");
      this.inner.onmessage = inbound("message");
      this.inner.onerror = inbound("error");
      this.inner.onclose = inbound("close");
    }

    get binaryType(): string {
      return this.inner.binaryType;
    }

    set binaryType(v: string) {
      this.inner.binaryType = v;
    }

    /** What the application has been told so far, not what the real socket is at. */
    get readyState(): number {
      return this.state;
    }

    send(data: string | Uint8Array): void {
      if (this.state !== OPEN) return;
      this.outgoing.push({ kind: "send", data }, net.off ? 0 : net.sampleDelay());
    }

    close(code?: number, reason?: string): void {
      if (this.state === CLOSED || this.state === CLOSING) return;
      this.state = CLOSING;
      // Behind queued sends, so a last message (e.g. leave) still goes out first.
      this.outgoing.push({ kind: "close", code, reason }, 0);
    }

    private transmit(m: Outgoing): void {
      if (m.kind === "close") {
        try {
          this.inner.close(m.code, m.reason);
        } catch {
          // Closing a socket that is still connecting throws in some implementations.
        }
        return;
      }
      // The real socket may have died while the message was held back: it is simply lost,
      // as it would be on a link that went down.
      if (this.inner.readyState === OPEN) this.inner.send(m.data);
    }

    private receive(m: Incoming): void {
      switch (m.kind) {
        case "open":
          if (this.state === CONNECTING) this.state = OPEN;
          this.onopen?.(m.ev);
          return;
        case "message":
          this.onmessage?.(m.ev);
          return;
        case "error":
          this.onerror?.(m.ev);
          return;
        case "close":
          this.state = CLOSED;
          this.outgoing.clear();
          this.onclose?.(m.ev);
          return;
      }
    }
  };
}

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
}
