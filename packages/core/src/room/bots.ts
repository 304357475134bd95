/**
 * A room's bot players (`RoomBots`): seats behind socketless connections, driven from the tick
 * or after a turn-based room's views, sending through the same arrival path as players.
 */
import { FrameWriter, PROTOCOL_VERSION, encodeHello, encodeInput, encodeLeave } from "@tikron/protocol";
import type { Clock, TimerHandle } from "../clock";
import type { BotBrain, BotSpec } from "../gameDefinition";
import type { Connection } from "../host";

/** What the bot driver needs from its room: the socket side's entry points and its clock. */
export interface BotHost {
  readonly clock: Clock;
  /** Clock time of room time 0: brains are told room time (see `BotBrain.next`). */
  readonly epoch: number;
  readonly dialect: "binary" | "json";
  open(conn: Connection): number;
  message(connId: number, data: Uint8Array | string): void;
}

/** Most bots one room will run (a typo must not start thousands). */
export const MAX_BOTS = 200;
/** Bots leave a ticking room nobody human has been in for this long, so it can stop. */
export const BOT_IDLE_MS = 5 * 60_000;
/** A turn-based bot waits this long after a view before it moves (reads like a person). */
const THINK_MS = 600;

/** A socket that is not one: the room sees a `Connection`; sends to it reach the brain. */
class BotConnection implements Connection {
  readonly bot = true;
  closed = false;
  constructor(private readonly onText: (text: string) => void) {}
  send(data: Uint8Array | string): void {
    if (typeof data === "string" && !this.closed) this.onText(data);
  }
  close(): void {
    this.closed = true;
  }
  bufferedAmount(): number {
    return 0;
  }
}

interface Bot {
  connId: number;
  conn: BotConnection;
  brain: BotBrain;
  seq: number;
  nextAt: number;
  timer: TimerHandle | null;
}

/**
 * The room's bots: each is a seat behind a {@link BotConnection}, joined with an ordinary hello
 * and driven from the tick (ticking rooms) or a short timer after each view (turn-based
 * rooms). Their inputs are counted apart (`bots.inputs` in tk:stats) as well as with
 * everyone's.
 */
export class RoomBots {
  /** Inputs bots sent. */
  inputs = 0;
  private readonly bots: Bot[] = [];
  private readonly w = new FrameWriter(512);
  private nextIndex = 0;
  private lastHumanAt: number;

  constructor(
    private readonly spec: BotSpec | undefined,
    private readonly host: BotHost,
  ) {
    this.lastHumanAt = host.clock.now();
  }

  /** Whether this room's game has bots at all. */
  get available(): boolean {
    return this.spec !== undefined;
  }

  /** Whether production gateways may add bots to this kind. */
  get allowedInProduction(): boolean {
    return this.spec?.allowInProduction === true;
  }

  /** Bots seated now (a bot the room closed, e.g. refused as the room filled, is gone). */
  get count(): number {
    this.prune();
    return this.bots.length;
  }

  /** Adds or removes bots until `n` (clamped to 0..{@link MAX_BOTS}) are seated; returns the count. */
  set(n: number): number {
    if (!this.spec) return 0;
    const target = Math.max(0, Math.min(MAX_BOTS, Math.floor(n)));
    this.prune();
    while (this.bots.length > target) this.remove(this.bots.pop()!);
    for (let tries = target - this.bots.length; tries > 0; tries--) this.add(this.spec);
    return this.count;
  }

  /**
   * Called at the start of every tick: due bots send their next input. `connected` counts
   * every seated socket, bots included; with no human for {@link BOT_IDLE_MS} the bots leave.
   */
  tick(now: number, connected: number): void {
    if (this.bots.length === 0) return;
    if (connected > this.bots.length) this.lastHumanAt = now;
    else if (now - this.lastHumanAt > BOT_IDLE_MS) {
      this.set(0);
      return;
    }
    const every = this.spec!.inputEveryMs;
    for (let i = 0; i < this.bots.length; i++) {
      const bot = this.bots[i]!;
      if (bot.conn.closed || now < bot.nextAt) continue;
      bot.nextAt = now + every;
      this.act(bot, now);
    }
  }

  private add(spec: BotSpec): void {
    const index = this.nextIndex++;
    const brain = spec.create(index);
    const bot: Bot = { connId: 0, conn: null!, brain, seq: 0, nextAt: 0, timer: null };
    bot.conn = new BotConnection((text) => this.received(bot, text));
    // Spread bots over the input interval so they do not all send on the same tick.
    bot.nextAt = this.host.clock.now() + ((index * 37) % Math.max(1, spec.inputEveryMs));
    bot.connId = this.host.open(bot.conn);
    const name = `bot-${index + 1}`;
    if (this.host.dialect === "json") {
      this.host.message(bot.connId, JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name }));
    } else {
      this.host.message(bot.connId, encodeHello(this.w.reset(), { version: PROTOCOL_VERSION, token: "", name }).peek());
    }
    if (!bot.conn.closed) this.bots.push(bot);
  }

  private remove(bot: Bot): void {
    if (bot.timer !== null) this.host.clock.clearTimer(bot.timer);
    bot.timer = null;
    if (bot.conn.closed) return;
    if (this.host.dialect === "json") this.host.message(bot.connId, JSON.stringify({ t: "leave" }));
    else this.host.message(bot.connId, encodeLeave(this.w.reset()).peek());
  }

  private act(bot: Bot, now: number): void {
    const payload = bot.brain.next(now - this.host.epoch);
    if (payload === null) return;
    const seq = ++bot.seq;
    this.inputs++;
    if (this.host.dialect === "json") {
      this.host.message(bot.connId, JSON.stringify({ t: "input", seq, data: payload }));
    } else if (payload instanceof Uint8Array) {
      this.host.message(bot.connId, encodeInput(this.w.reset(), seq, payload).peek());
    }
  }

  /** A JSON room's message reached a bot: show it to the brain, then act a little later. */
  private received(bot: Bot, text: string): void {
    bot.brain.receive?.(text);
    if (bot.timer !== null || this.spec === undefined) return;
    bot.timer = this.host.clock.setTimer(() => {
      bot.timer = null;
      if (!bot.conn.closed) this.act(bot, this.host.clock.now());
    }, THINK_MS);
  }

  private prune(): void {
    for (let i = this.bots.length - 1; i >= 0; i--) {
      const bot = this.bots[i]!;
      if (!bot.conn.closed) continue;
      if (bot.timer !== null) this.host.clock.clearTimer(bot.timer);
      this.bots.splice(i, 1);
    }
  }
}
