/**
 * The match log's format, one definition for the recorder that writes it and the replay that
 * reads it: a header (what the room was made from: kind, id, epoch, seed, options, params, store,
 * listing), then one record per thing that reached the game or left the room, in the room's own
 * order. docs/replay.md has the layout in a table.
 *
 * A record is `[u8 tag][time?][body]`: the tag's low six bits are its {@link RecordKind}; bit
 * `0x80` says a varuint of whole ms since the previous record's time follows, bit `0x40` an f64
 * room time (a clock with fractions of a ms); neither: the previous record's time. Room time is
 * ms since the room's epoch, as games see it.
 */
import { BinaryReader, DecodeError, type FrameWriter, type MatchSummary } from "@tikron/protocol";

/** The first bytes of every match log: `TKML`. */
export const MATCH_LOG_MAGIC = [0x54, 0x4b, 0x4d, 0x4c] as const;
/** The format version this code writes and reads. */
export const MATCH_LOG_VERSION = 1;

/** What each record is (the tag's low six bits). Causes a replay performs; effects it checks. */
export const RecordKind = {
  /** Tick `k` began: `[varuint k]`. */
  Tick: 1,
  /** A later slice of a flush began in its own task. */
  Slice: 2,
  /** A flush ended: `[u32 world digest][u32 digest of the state messages sent since the last]`. */
  Flushed: 3,
  /**
   * A new seat: `[varuint playerId][string name][u8 flags: 1 bound identity, 2 bot][string
   * identity][string claims JSON][string join options JSON]`.
   */
  Join: 4,
  /** A held (or replaced) seat taken back: `[varuint playerId]`. */
  Reconnect: 5,
  /** A seat lost its socket and is held: `[varuint playerId]`. */
  Disconnect: 6,
  /** A seat freed for good: `[varuint playerId]`. */
  Leave: 7,
  /** A binary room's inputs as they arrived: `[varuint playerId][varuint n]` n × `[varuint seq][varuint length][payload]`. */
  Inputs: 8,
  /** A JSON room's inputs: `[varuint playerId][varuint n]` n × `[varuint seq][string JSON]`. */
  JsonInputs: 9,
  /** A game message for `onMessage`: `[varuint playerId][string type][string JSON payload]`. */
  Message: 10,
  /** A client held back from a flush (behind on its receipts): `[varuint playerId]`. */
  Withheld: 11,
  /** The room's checkpoint (tokens replaced), taken after a flush: `[string JSON]`. */
  Checkpoint: 12,
  /** A checkpoint restored into the room (tokens replaced): `[string JSON]`. */
  Restore: 13,
  /** A socket that survived a restart put back on its seat: `[string JSON seat ticket]`. */
  Adopt: 14,
  /** The match ended: `[string reason]` (`disposed`, `handed_over`, `limit`). */
  End: 15,
  /**
   * A flush's first slice left seats for later tasks (its `slice` records): where a turn-based
   * room's flush began between two causes, which a replay must let it do there.
   */
  Deferred: 16,
} as const;

/** A record kind's number. */
export type RecordKindCode = (typeof RecordKind)[keyof typeof RecordKind];

const KIND_NAMES: Record<number, string> = Object.fromEntries(Object.entries(RecordKind).map(([k, v]) => [v, k.toLowerCase()]));

/** The name of a record kind (`tick`, `join`, …), for reports. */
export function recordKindName(kind: number): string {
  return KIND_NAMES[kind] ?? `kind ${kind}`;
}

/** Tag bit: a varuint of whole ms since the previous record follows. */
export const TIME_DELTA = 0x80;
/** Tag bit: an f64 room time follows. */
export const TIME_ABSOLUTE = 0x40;
/** The tag's kind bits. */
export const KIND_MASK = 0x3f;

/** Header flag: the log holds the digest of the state messages the room sent (not a relayed simulation's, whose relays send them). */
export const HEADER_FRAMES = 1;
/** Header flag: the room speaks the JSON dialect. */
export const HEADER_JSON = 2;

/** What a room was made from: the log's header. */
export interface MatchLogHeader {
  /** The match's id (unique; time-sortable, see `newMatchId`). */
  matchId: string;
  /** The room's kind. */
  kind: string;
  /** The room's id. */
  roomId: string;
  /** Clock time of room time 0 (epoch ms on every host). */
  startedAt: number;
  /** The seed the room handed its game's `create`. */
  seed: number;
  /** `HEADER_FRAMES` | `HEADER_JSON`. */
  flags: number;
  /** The room's resolved options, as JSON text. */
  options: string;
  /** The game params (`world`, `aoi`), as JSON text. */
  params: string;
  /** The game store the room started with, as JSON text ("" without one). */
  store: string;
  /** How a matchmaker listed the room at its making (`ListingInit`), as JSON text ("" without one). */
  listing: string;
}

/** Writes the magic, the version and the header. */
export function writeMatchLogHeader(w: FrameWriter, h: MatchLogHeader): void {
  for (const b of MATCH_LOG_MAGIC) w.u8(b);
  w.u8(MATCH_LOG_VERSION);
  w.string(h.matchId).string(h.kind).string(h.roomId).f64(h.startedAt).u32(h.seed >>> 0).u8(h.flags);
  w.string(h.options).string(h.params).string(h.store).string(h.listing);
}

/** Longest text a log field may hold (a checkpoint of a big room is a few hundred KB). */
const MAX_TEXT_BYTES = 64 * 1024 * 1024;

function readHeader(r: BinaryReader): MatchLogHeader {
  for (const b of MATCH_LOG_MAGIC) if (r.u8() !== b) throw new DecodeError("bad_value", "not a match log");
  const version = r.u8();
  if (version !== MATCH_LOG_VERSION) throw new DecodeError("bad_value", `match log version ${version}, this code reads ${MATCH_LOG_VERSION}`);
  return {
    matchId: r.string(),
    kind: r.string(),
    roomId: r.string(),
    startedAt: r.f64(),
    seed: r.u32(),
    flags: r.u8(),
    options: r.string(MAX_TEXT_BYTES),
    params: r.string(MAX_TEXT_BYTES),
    store: r.string(MAX_TEXT_BYTES),
    listing: r.string(MAX_TEXT_BYTES),
  };
}

/** One input of an `inputs` record: its seq and payload (bytes, or JSON text in JSON rooms). */
export interface LoggedInput {
  /** Its sequence number, as sent. */
  seq: number;
  /** The payload as it arrived: bytes (a view into the log), or a JSON room's JSON text. */
  payload: Uint8Array | string;
}

/** A record with no body: a flush's later slice, or its first slice leaving seats for later. */
export interface BareRecord {
  /** Its kind. */
  kind: typeof RecordKind.Slice | typeof RecordKind.Deferred;
}

/** A tick began. */
export interface TickRecord {
  /** Its kind. */
  kind: typeof RecordKind.Tick;
  /** The tick's number. */
  tick: number;
}

/** A flush ended. */
export interface FlushedRecord {
  /** Its kind. */
  kind: typeof RecordKind.Flushed;
  /** The world's digest after it. */
  world: number;
  /** The hash of the state messages and notices sent since the flush before. */
  frames: number;
}

/** A new seat, with the player record its game got. */
export interface JoinRecord {
  /** Its kind. */
  kind: typeof RecordKind.Join;
  /** The seat's player id. */
  playerId: number;
  /** The name it joined with. */
  name: string;
  /** Its identity: a verified one (`bound`), or the anonymous one the room drew. */
  identity: string;
  /** Whether the identity is a verified one the seat is bound to. */
  bound: boolean;
  /** Its sign-in claims, as JSON text. */
  claims: string;
  /** Its checked join options, as JSON text. */
  options: string;
  /** Whether it is the room's own bot. */
  bot: boolean;
}

/** Something that happened to one seat. */
export interface SeatRecord {
  /** Its kind. */
  kind: typeof RecordKind.Reconnect | typeof RecordKind.Disconnect | typeof RecordKind.Leave | typeof RecordKind.Withheld;
  /** The seat's player id. */
  playerId: number;
}

/** A socket's inputs as they arrived. */
export interface InputsRecord {
  /** Its kind. */
  kind: typeof RecordKind.Inputs | typeof RecordKind.JsonInputs;
  /** The seat's player id. */
  playerId: number;
  /** The inputs, in the order they came. */
  inputs: LoggedInput[];
}

/** A game message. */
export interface MessageRecord {
  /** Its kind. */
  kind: typeof RecordKind.Message;
  /** The sender's player id. */
  playerId: number;
  /** The message's type. */
  type: string;
  /** Its payload, as JSON text. */
  json: string;
}

/** A record holding JSON text: a checkpoint taken or restored, an adopted socket's ticket. */
export interface TextRecord {
  /** Its kind. */
  kind: typeof RecordKind.Checkpoint | typeof RecordKind.Restore | typeof RecordKind.Adopt;
  /** The value, as JSON text (tokens replaced). */
  json: string;
}

/** The match ended. */
export interface EndRecord {
  /** Its kind. */
  kind: typeof RecordKind.End;
  /** Why: `disposed`, `handed_over`, `limit`. */
  reason: string;
}

/** One record read back (see {@link RecordKind} for each body), with its room time (ms). */
export type MatchRecord = {
  /** Room time of the record (ms since the room's epoch). */
  time: number;
} & (BareRecord | TickRecord | FlushedRecord | JoinRecord | SeatRecord | InputsRecord | MessageRecord | TextRecord | EndRecord);

/**
 * A match log read back: its header, and its records indexed in one pass (each record's offset,
 * kind and room time), decoded one at a time with {@link record}. Throws a `DecodeError` for
 * bytes that are not a whole log of this version (a log cut short after its last whole record
 * reads up to that record).
 */
export class MatchLog {
  /** The header. */
  readonly header: MatchLogHeader;
  /** The whole log. */
  readonly bytes: Uint8Array;
  /** Records in the log. */
  readonly count: number;
  readonly #starts: Int32Array;
  readonly #kinds: Uint8Array;
  readonly #times: Float64Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    const r = new BinaryReader(bytes);
    this.header = readHeader(r);
    const starts: number[] = [];
    const kinds: number[] = [];
    const times: number[] = [];
    let time = 0;
    while (r.remaining > 0) {
      const start = r.offset;
      let tag: number;
      try {
        tag = r.u8();
        time = readTime(r, tag, time);
        skipBody(r, tag & KIND_MASK);
      } catch (e) {
        // A log whose last record was cut (a crash between two writes) reads up to it.
        if (e instanceof DecodeError && e.code === "truncated") {
          r.offset = start;
          break;
        }
        throw e;
      }
      starts.push(start);
      kinds.push(tag & KIND_MASK);
      times.push(time);
    }
    starts.push(r.offset);
    this.count = kinds.length;
    this.#starts = Int32Array.from(starts);
    this.#kinds = Uint8Array.from(kinds);
    this.#times = Float64Array.from(times);
  }

  /** Kind of record `i`. */
  kind(i: number): number {
    return this.#kinds[i]!;
  }

  /** Room time of record `i`. */
  time(i: number): number {
    return this.#times[i]!;
  }

  /** The bytes of record `i` (a view). */
  recordBytes(i: number): Uint8Array {
    return this.bytes.subarray(this.#starts[i]!, this.#starts[i + 1]!);
  }

  /** Record `i`, decoded. */
  record(i: number): MatchRecord {
    const r = new BinaryReader(this.bytes, this.#starts[i]!, this.#starts[i + 1]!);
    const tag = r.u8();
    readTime(r, tag, 0);
    return readBody(r, tag & KIND_MASK, this.#times[i]!);
  }
}

/** One record's bytes decoded on their own (`previousTime`: the room time of the record before it). */
export function readRecord(bytes: Uint8Array, previousTime: number): MatchRecord {
  const r = new BinaryReader(bytes);
  const tag = r.u8();
  return readBody(r, tag & KIND_MASK, readTime(r, tag, previousTime));
}

const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, "0");

/** A record in words, for reports (`tick 41`, `join of player 3 "ann"`, `flush: world 1a2b…`). */
export function describeRecord(m: MatchRecord): string {
  switch (m.kind) {
    case RecordKind.Tick:
      return `tick ${m.tick}`;
    case RecordKind.Slice:
      return "a flush's next slice";
    case RecordKind.Deferred:
      return "a flush's first slice leaving seats for later";
    case RecordKind.Flushed:
      return `a flush (world ${hex(m.world)}, frames ${hex(m.frames)})`;
    case RecordKind.Join:
      return `the join of player ${m.playerId} ${JSON.stringify(m.name)}${m.bot ? " (a bot)" : ""}`;
    case RecordKind.Reconnect:
      return `player ${m.playerId} reconnecting`;
    case RecordKind.Disconnect:
      return `player ${m.playerId}'s socket dropping (seat held)`;
    case RecordKind.Leave:
      return `player ${m.playerId} leaving`;
    case RecordKind.Withheld:
      return `player ${m.playerId} held back from a flush`;
    case RecordKind.Inputs:
    case RecordKind.JsonInputs:
      return `${m.inputs.length} input(s) of player ${m.playerId} (seq ${m.inputs.map((x) => x.seq).join(", ")})`;
    case RecordKind.Message:
      return `player ${m.playerId}'s message ${JSON.stringify(m.type)}`;
    case RecordKind.Checkpoint:
      return `a checkpoint (${m.json.length} chars)`;
    case RecordKind.Restore:
      return "a checkpoint restored";
    case RecordKind.Adopt:
      return "a socket adopted after a restart";
    case RecordKind.End:
      return `the end (${m.reason})`;
  }
}

function readTime(r: BinaryReader, tag: number, previous: number): number {
  if (tag & TIME_ABSOLUTE) return r.f64();
  if (tag & TIME_DELTA) return previous + r.varuint();
  return previous;
}

function skipBody(r: BinaryReader, kind: number): void {
  readBody(r, kind, 0);
}

function readBody(r: BinaryReader, kind: number, time: number): MatchRecord {
  switch (kind) {
    case RecordKind.Tick:
      return { kind, time, tick: r.varuint() };
    case RecordKind.Slice:
    case RecordKind.Deferred:
      return { kind, time };
    case RecordKind.Flushed:
      return { kind, time, world: r.u32(), frames: r.u32() };
    case RecordKind.Join: {
      const playerId = r.varuint();
      const name = r.string();
      const flags = r.u8();
      const identity = r.string();
      const claims = r.string(MAX_TEXT_BYTES);
      const options = r.string(MAX_TEXT_BYTES);
      return { kind, time, playerId, name, identity, bound: (flags & 1) !== 0, claims, options, bot: (flags & 2) !== 0 };
    }
    case RecordKind.Reconnect:
    case RecordKind.Disconnect:
    case RecordKind.Leave:
    case RecordKind.Withheld:
      return { kind, time, playerId: r.varuint() };
    case RecordKind.Inputs:
    case RecordKind.JsonInputs: {
      const playerId = r.varuint();
      const n = r.varuint();
      const inputs: LoggedInput[] = [];
      for (let i = 0; i < n; i++) {
        const seq = r.varuint();
        inputs.push({ seq, payload: kind === RecordKind.Inputs ? r.bytes(r.varuint()) : r.string(MAX_TEXT_BYTES) });
      }
      return { kind, time, playerId, inputs };
    }
    case RecordKind.Message:
      return { kind, time, playerId: r.varuint(), type: r.string(), json: r.string(MAX_TEXT_BYTES) };
    case RecordKind.Checkpoint:
    case RecordKind.Restore:
    case RecordKind.Adopt:
      return { kind, time, json: r.string(MAX_TEXT_BYTES) };
    case RecordKind.End:
      return { kind, time, reason: r.string() };
    default:
      throw new DecodeError("bad_value", `unknown match log record kind ${kind}`);
  }
}

/**
 * The summary of a log read back on its own (a match its host did not live to end: its pieces
 * found in storage after a restart): its players are the seats it records taken, its end its
 * last record's time. Null for bytes that are not a match log.
 */
export function summarizeLog(bytes: Uint8Array, reason: string): MatchSummary | null {
  let log: MatchLog;
  try {
    log = new MatchLog(bytes);
  } catch {
    return null;
  }
  const players = new Set<number>();
  for (let i = 0; i < log.count; i++) {
    const kind = log.kind(i);
    if (kind === RecordKind.Join) players.add((log.record(i) as { playerId: number }).playerId);
    else if (kind === RecordKind.Restore || kind === RecordKind.Adopt) {
      const v = JSON.parse((log.record(i) as { json: string }).json) as { playerId?: unknown; seats?: { playerId?: unknown }[] };
      if (typeof v.playerId === "number") players.add(v.playerId);
      for (const seat of v.seats ?? []) if (typeof seat.playerId === "number") players.add(seat.playerId);
    }
  }
  const h = log.header;
  const end = log.count > 0 ? log.time(log.count - 1) : 0;
  return { matchId: h.matchId, kind: h.kind, roomId: h.roomId, startedAt: h.startedAt, endedAt: h.startedAt + end, players: players.size, bytes: bytes.byteLength, reason };
}
