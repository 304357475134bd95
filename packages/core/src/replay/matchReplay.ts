/**
 * `MatchReplay` and `replay()`: a recorded match re-run in the core, with no sockets and no real
 * time. The room is made again as the log's header says (the kind's definition, the same
 * options, params, store, listing and seed, on a {@link ReplayClock} at the same epoch) with a
 * {@link ReplayRecorder} in it, and the log's causes are done to it in order, each at its
 * recorded time: a join is a hello, inputs go to the intake as they arrived, a game message is
 * sent, a dropped socket closes, a freed seat is freed, a tick or a flush's next slice runs when
 * its record comes. Everything else (flushes, checkpoints, the clients held back, the bots'
 * inputs in a tick) the room does by itself, and its recorder checks each record it writes
 * against the log. The replay is exact when the room records the whole log again.
 *
 * Nothing here needs Node, a browser or Cloudflare: the same code verifies a match from the
 * command line and plays it in the replay viewer.
 */
import { binaryDialect, jsonDialect, requestsOf, type ClientDialect } from "@tikron/protocol";
import type { Game } from "../game";
import type { GameDefinition } from "../gameDefinition";
import type { PlayerClaims } from "../player";
import type { Connection } from "../host";
import type { Room } from "../room";
import { createRoom } from "../roomFactory";
import type { RoomOptions } from "../roomOptions";
import { HEADER_JSON, MatchLog, RecordKind, recordKindName, type MatchLogHeader, type MatchRecord } from "./matchLog";
import { ReplayClock } from "./replayClock";
import { ReplayRecorder, type ReplayDifference } from "./replayRecorder";

/** Room options a replayed room lifts: its guards against clients, which a replay's own sockets never need and the game never reads. */
const LIFTED_GUARDS: Partial<RoomOptions> = {
  reconnectWindowMs: 2 ** 40,
  helloTimeoutMs: 2 ** 40,
  msgRatePerSec: 1e9,
  msgBurst: 1e9,
  joinRatePerSec: 1e9,
  joinBurst: 1e9,
  maxPendingSockets: 1e9,
  maxPendingPerIdentity: 1e9,
  identityJoinRatePerSec: 1e9,
  identityJoinBurst: 1e9,
  abuseCooldownMs: 0,
  rejectedFramesPerSec: 1e9,
  rejectedFramesBurst: 1e9,
  maxErrorsPerConnection: 1e9,
  minStatsIntervalMs: 0,
  gameMessageRatePerSec: 1e9,
  gameMessageBurst: 1e9,
  maxBufferedBytes: Number.MAX_SAFE_INTEGER,
  softBufferedBytes: Number.MAX_SAFE_INTEGER,
  maxUnreceiptedMessages: Number.MAX_SAFE_INTEGER,
  slowConsumerGraceMs: Number.MAX_SAFE_INTEGER,
  bots: 0,
};

/** How a replay reports what its room sends. */
export interface ReplayOptions {
  /**
   * Every message the replayed room sends a player's socket (its welcome, frames, notices,
   * errors), in order: what that player's client read. Bytes are a copy the callee may keep.
   */
  onSend?(playerId: number, data: Uint8Array | string): void;
}

/** How a replay went. */
export interface ReplayReport {
  /** True when the room recorded every record of the log again. */
  exact: boolean;
  /** The log's header. */
  header: MatchLogHeader;
  /** Records replayed and found the same. */
  records: number;
  /** Records in the log. */
  total: number;
  /** The last tick replayed. */
  ticks: number;
  /** Why the log ends (`disposed`, `handed_over`, `limit`), or null for a log cut short (a crash). */
  ended: string | null;
  /** The first difference, or null. */
  difference: ReplayDifference | null;
  /** One line saying it: `replay: exact (…)`, or where and how it differs. */
  message: string;
}

/** A replayed room's socket: what the room sends it goes to {@link ReplayOptions.onSend}. */
class ReplaySocket implements Connection {
  connId = -1;
  closed = false;
  playerId = 0;
  readonly bot?: boolean;

  constructor(
    private readonly replay: MatchReplay,
    bot: boolean,
  ) {
    if (bot) this.bot = true;
  }

  send(data: Uint8Array | string): void {
    if (!this.closed) this.replay.received(this, data);
  }

  close(): void {
    this.closed = true;
  }

  bufferedAmount(): number {
    return 0;
  }
}

/** The causes a replay does; every other kind is the room's own doing, checked as it records it. */
const CAUSES = new Set<number>([
  RecordKind.Tick,
  RecordKind.Slice,
  RecordKind.Join,
  RecordKind.Reconnect,
  RecordKind.Disconnect,
  RecordKind.Leave,
  RecordKind.Inputs,
  RecordKind.JsonInputs,
  RecordKind.Message,
  RecordKind.Restore,
  RecordKind.Adopt,
]);

/** Microtask turns a replay lets pass for an effect its room has not recorded yet (a JSON room flushes on one). */
const EFFECT_TURNS = 8;

/**
 * A recorded match re-run (see the module comment). Step it with {@link runToTick} /
 * {@link runToTime}, or {@link run} it to the end; read the room, its game and what its sockets
 * got meanwhile (`onSend`).
 */
export class MatchReplay {
  /** The log replayed. */
  readonly log: MatchLog;
  /** The replayed room. */
  readonly room: Room;
  /** The game it runs. */
  readonly game: Game;
  /** Its clock (time is the log's). */
  readonly clock: ReplayClock;
  readonly #recorder: ReplayRecorder;
  readonly #options: ReplayOptions;
  readonly #dialect: ClientDialect;
  /** Each player's socket now. */
  readonly #sockets = new Map<number, ReplaySocket>();
  /** Each seat's reconnect token in the replayed room, and its identity. */
  readonly #tokens = new Map<number, string>();
  readonly #identities = new Map<number, string | undefined>();
  readonly #bots = new Set<number>();
  #ended: string | null = null;

  /**
   * @throws DecodeError for bytes that are not a match log; Error for a log of another kind
   * than `definition`'s.
   */
  constructor(definition: GameDefinition, log: MatchLog | Uint8Array, options: ReplayOptions = {}) {
    this.log = log instanceof MatchLog ? log : new MatchLog(log);
    const h = this.log.header;
    if (definition.kind !== h.kind) throw new Error(`a log of ${h.kind} cannot be replayed as ${definition.kind}`);
    this.#options = options;
    this.#dialect = h.flags & HEADER_JSON ? jsonDialect : binaryDialect;
    this.clock = new ReplayClock(h.startedAt);
    let recorder: ReplayRecorder | null = null;
    let game: Game | null = null;
    this.room = createRoom(
      { ...definition, create: (o, p, seed) => (game = definition.create(o, p, seed)) },
      {
        kind: h.kind,
        roomId: h.roomId,
        overrides: { ...(JSON.parse(h.options) as Partial<RoomOptions>), ...LIFTED_GUARDS },
        params: JSON.parse(h.params) as Record<string, number>,
        store: h.store === "" ? undefined : JSON.parse(h.store),
        listing: h.listing === "" ? undefined : JSON.parse(h.listing),
        clock: this.clock,
        seed: h.seed,
        recorder: (start) => (recorder = new ReplayRecorder(start, this.log)),
      },
    );
    this.#recorder = recorder!;
    this.game = game!;
  }

  /** The log's header. */
  get header(): MatchLogHeader {
    return this.log.header;
  }

  /** The index of the next record to replay. */
  get position(): number {
    return this.#recorder.position;
  }

  /** True once the log is replayed to its end (or its first difference). */
  get done(): boolean {
    return this.#ended !== null || this.#recorder.difference !== null || this.position >= this.log.count;
  }

  /** The last tick replayed (0 before the first). */
  get tick(): number {
    return this.#recorder.tickIndex;
  }

  /** Room time now (ms since the room's epoch). */
  get time(): number {
    return this.clock.now() - this.log.header.startedAt;
  }

  /** The first difference found, or null. */
  get difference(): ReplayDifference | null {
    return this.#recorder.difference;
  }

  /** Replays up to (not into) the first tick after `tick`: the room then shows tick `tick`'s flush. */
  runToTick(tick: number): Promise<void> {
    return this.#advance((i) => this.log.kind(i) === RecordKind.Tick && (this.log.record(i) as { tick: number }).tick > tick);
  }

  /** Replays every record up to room time `time` (ms). */
  runToTime(time: number): Promise<void> {
    return this.#advance((i) => this.log.time(i) > time);
  }

  /** Replays to the end (or the first difference) and reports. */
  async run(): Promise<ReplayReport> {
    await this.#advance(() => false);
    return this.report();
  }

  /** How it went so far. */
  report(): ReplayReport {
    const h = this.log.header;
    const difference = this.difference;
    const exact = difference === null && this.position >= this.log.count - (this.#ended !== null ? 1 : 0);
    const ticks = this.tick;
    let message: string;
    if (difference) message = differenceMessage(h.kind, difference);
    else if (exact) message = `replay: exact (${this.position} records, ${ticks} ticks, ${Math.round(this.time)} ms of ${h.kind} ${h.roomId})`;
    else message = `replay: ${this.position} of ${this.log.count} records replayed, no difference yet`;
    return { exact, header: h, records: this.position, total: this.log.count, ticks, ended: this.#ended, difference, message };
  }

  /** @internal A replayed socket got a message. */
  received(socket: ReplaySocket, data: Uint8Array | string): void {
    if (socket.playerId === 0) {
      const m = this.#dialect.decode(data, null);
      if (m && !(m instanceof Error) && m.kind === "welcome") {
        socket.playerId = m.playerId;
        this.#tokens.set(m.playerId, m.token);
      }
    }
    if (this.#options.onSend && socket.playerId !== 0) this.#options.onSend(socket.playerId, typeof data === "string" ? data : data.slice());
  }

  async #advance(stop: (i: number) => boolean): Promise<void> {
    const log = this.log;
    const recorder = this.#recorder;
    while (!this.done) {
      const i = recorder.position;
      const kind = log.kind(i);
      if (kind === RecordKind.End) {
        this.#ended = (log.record(i) as { reason: string }).reason;
        return;
      }
      if (stop(i)) return;
      if (!CAUSES.has(kind) || this.#isBotsOwn(i)) {
        // The room's own doing, not recorded yet: a turn-based room flushes on a microtask,
        // which read the clock where the log says (a host's clock may have moved on since the
        // cause: a fake one past a timer it fired, a real one by a millisecond).
        this.clock.set(log.header.startedAt + log.time(i));
        for (let turn = 0; turn < EFFECT_TURNS && recorder.position === i; turn++) await Promise.resolve();
        if (recorder.position === i) recorder.missing(i);
        continue;
      }
      // The next record is a cause: done now, in the same turn as the cause before it. A
      // turn-based room's flush (a microtask) ran between two causes only where the log has it
      // between them, and then the replay waited for it above.
      const record = log.record(i);
      this.clock.set(log.header.startedAt + record.time);
      this.#cause(record);
      if (recorder.position === i) recorder.missing(i);
    }
  }

  /** A bot's inputs in a ticking room: its own brain sends them in a tick (an effect of the tick). */
  #isBotsOwn(i: number): boolean {
    const kind = this.log.kind(i);
    if (kind !== RecordKind.Inputs || !this.game.ticking) return false;
    return this.#bots.has((this.log.record(i) as { playerId: number }).playerId);
  }

  #cause(r: MatchRecord): void {
    const room = this.room;
    switch (r.kind) {
      case RecordKind.Tick:
        this.clock.fireTimer();
        return;
      case RecordKind.Slice:
        this.clock.runTask();
        return;
      case RecordKind.Join:
        // A verified identity comes back with the socket, as its host verified it; an anonymous
        // one the replayed room is handed again by its recorder when it draws one.
        this.#identities.set(r.playerId, r.bound ? r.identity : undefined);
        if (r.bot) {
          this.#bots.add(r.playerId);
          room.setBots(room.botCount + 1);
          return;
        }
        return this.#hello(r.bound ? r.identity : undefined, "", r.name, true, JSON.parse(r.claims) as PlayerClaims, JSON.parse(r.options) as object);
      case RecordKind.Reconnect:
        return this.#hello(this.#identities.get(r.playerId), this.#tokens.get(r.playerId) ?? "", "", false);
      case RecordKind.Disconnect: {
        const socket = this.#sockets.get(r.playerId);
        if (!socket || socket.closed) return;
        socket.closed = true;
        room.closed(socket.connId, 1006);
        return;
      }
      case RecordKind.Leave:
        room.kick(r.playerId);
        return;
      case RecordKind.Inputs:
      case RecordKind.JsonInputs: {
        // A turn-based room's bot moves on a timer of its own (a view, then a pause).
        if (this.#bots.has(r.playerId)) return void this.clock.fireTimer();
        const socket = this.#sockets.get(r.playerId);
        if (!socket) return;
        const entries = r.inputs.map((x) => ({ seq: x.seq, payload: typeof x.payload === "string" ? JSON.parse(x.payload) : x.payload }));
        room.relayedInputs(socket.connId, entries, entries.length);
        return;
      }
      case RecordKind.Message: {
        const socket = this.#sockets.get(r.playerId);
        if (socket) room.message(socket.connId, requestsOf(this.#dialect).message(0, r.type, r.json));
        return;
      }
      case RecordKind.Restore: {
        const checkpoint = JSON.parse(r.json) as { seats?: { playerId: number; token: string; identity?: string }[] };
        for (const s of checkpoint.seats ?? []) {
          this.#tokens.set(s.playerId, s.token);
          this.#identities.set(s.playerId, s.identity);
        }
        room.restoreCheckpoint(checkpoint);
        return;
      }
      case RecordKind.Adopt: {
        const ticket = JSON.parse(r.json) as { playerId: number; token: string; name: string; json: boolean; identity?: string };
        this.#tokens.set(ticket.playerId, ticket.token);
        this.#identities.set(ticket.playerId, ticket.identity);
        const socket = new ReplaySocket(this, false);
        socket.playerId = ticket.playerId;
        socket.connId = room.adopt(socket, ticket);
        this.#sockets.set(ticket.playerId, socket);
        return;
      }
      default:
        throw new Error(`not a cause: ${recordKindName(r.kind)}`);
    }
  }

  /**
   * A socket opens and says hello (a new seat with its claims and join options, or a held one
   * taken back), past a lock the game may have set since.
   */
  #hello(identity: string | undefined, token: string, name: string, join: boolean, claims?: PlayerClaims, options?: object): void {
    const room = this.room;
    const socket = new ReplaySocket(this, false);
    socket.connId = room.open(socket, identity, undefined, undefined, claims && Object.keys(claims).length > 0 ? claims : undefined);
    const locked = join && room.status().locked;
    if (locked) room.setLocked(false);
    room.message(socket.connId, this.#dialect.hello(token, name, options && Object.keys(options).length > 0 ? options : undefined));
    if (locked) room.setLocked(true);
    if (socket.playerId !== 0) this.#sockets.set(socket.playerId, socket);
  }
}

/** Replays `log` (a match log's bytes) with `definition`, to its end or its first difference. */
export function replay(definition: GameDefinition, log: MatchLog | Uint8Array, options?: ReplayOptions): Promise<ReplayReport> {
  return new MatchReplay(definition, log, options).run();
}

/** The report's line for a difference: where, what, and what it likely means. */
function differenceMessage(kind: string, d: ReplayDifference): string {
  const where = `tick ${d.tick} (room time ${Math.round(d.time)} ms, record ${d.record})`;
  switch (d.what) {
    case "world":
      return `replay: the world differs at ${where}: ${kind} is not replayed exactly (does its game read the clock or an unseeded random? use ctx.now(), ctx.epoch and a generator seeded from create's seed)`;
    case "frames":
      return `replay: the frames sent differ at ${where} (the world is the same): expected ${d.expected}, got ${d.actual}`;
    case "checkpoint":
      return `replay: the checkpoint differs at ${where}: ${kind}'s game state went another way than the frames show`;
    case "record":
      return `replay: differs at ${where}: expected ${d.expected}, the replay did ${d.actual}`;
  }
}
