/**
 * `ReplayRecorder`: the recorder of a replayed room. It writes each record as a live room's
 * recorder would and compares it, byte for byte, with the record its log holds at that place:
 * a replay is exact when the room it re-runs records the log again. The first record that
 * differs is kept (`difference`) and nothing more is compared. Its gate holds a client back, or
 * closes it, where the log says the recorded room did.
 */
import type { GatedLink, RecordedRoom, StreamGateway } from "./matchRecorder";
import { LogRecorder, type MatchStart } from "./logRecorder";
import { HEADER_FRAMES, MatchLog, RecordKind, describeRecord, readRecord, type MatchLogHeader, type MatchRecord } from "./matchLog";

/** What a replay found different first: which record, where in the match, and how. */
export interface ReplayDifference {
  /** The record's index in the log. */
  record: number;
  /** The last tick begun before it (0 before the first). */
  tick: number;
  /** Its room time (ms). */
  time: number;
  /**
   * `world`: a flush's world digest differs (the game's state went another way); `frames`: the
   * state messages sent differ; `checkpoint`: a checkpoint differs; `record`: something else
   * happened (or nothing, where the log has something).
   */
  what: "world" | "frames" | "checkpoint" | "record";
  /** The log's record, in words. */
  expected: string;
  /** What the replay did there, in words ("nothing" when it did not). */
  actual: string;
}

/** No limits in a replay: its log's end, or its first difference, ends it. */
const UNLIMITED = { checkpointEveryMs: 0, maxMs: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER };

/** The recorder of a replayed room (see the module comment). */
export class ReplayRecorder extends LogRecorder {
  /** The log being replayed. */
  readonly log: MatchLog;
  /** The index of the next record the replayed room must record. */
  position = 0;
  /** The last tick the replayed room began. */
  tickIndex = 0;
  /** The first difference, once found. */
  difference: ReplayDifference | null = null;

  constructor(start: MatchStart, log: MatchLog) {
    super(start, null, UNLIMITED, log.header.matchId);
    this.log = log;
  }

  /** The replayed room writes the recorded header (its frames digest as the recorded room had it). */
  protected override header(room: RecordedRoom): MatchLogHeader {
    const own = super.header(room);
    return { ...own, flags: (own.flags & ~HEADER_FRAMES) | (this.log.header.flags & HEADER_FRAMES) };
  }

  protected override headerWritten(): void {
    this.w.reset();
  }

  protected override checkpointDue(): boolean {
    return this.position < this.log.count && this.log.kind(this.position) === RecordKind.Checkpoint;
  }

  protected override recorded(start: number): void {
    const w = this.w;
    const end = w.offset;
    if (this.difference === null) {
      const mine = w.peek().subarray(start, end);
      const i = this.position;
      if (i >= this.log.count) {
        this.differs(i, "record", "the log's end", describeRecord(readRecord(mine, this.previousTime(i))));
      } else if (!sameBytes(mine, this.log.recordBytes(i))) {
        const theirs = this.log.record(i);
        const ours = readRecord(mine, this.previousTime(i));
        this.differs(i, whatDiffers(theirs, ours), describeRecord(theirs), describeRecord(ours));
      } else {
        if (this.log.kind(i) === RecordKind.Tick) this.tickIndex = (this.log.record(i) as { tick: number }).tick;
        this.position = i + 1;
      }
    }
    // Nothing is kept: each record was compared as it was written.
    w.offset = start;
  }

  /** The anonymous identity of the join the log has next, for the replayed room to give it. */
  anonymousIdentity(): string | undefined {
    const i = this.position;
    if (this.difference !== null || i >= this.log.count || this.log.kind(i) !== RecordKind.Join) return undefined;
    const r = this.log.record(i) as { identity: string; bound: boolean };
    return r.bound ? undefined : r.identity;
  }

  /** The replay expected record `i` and the room did not record it. */
  missing(i: number): void {
    if (this.difference === null) this.differs(i, "record", describeRecord(this.log.record(i)), "nothing");
  }

  override gate<L extends GatedLink>(sockets: StreamGateway<L>): StreamGateway<L> {
    return {
      streamAllowed: (link, now) => {
        const playerId = link.seat?.playerId;
        const i = this.position;
        if (playerId === undefined || this.difference !== null || i >= this.log.count) return true;
        const kind = this.log.kind(i);
        if (kind !== RecordKind.Withheld && kind !== RecordKind.Disconnect) return true;
        if ((this.log.record(i) as { playerId: number }).playerId !== playerId) return true;
        // Where the recorded room held this client back, or closed it as one that does not read.
        if (kind === RecordKind.Withheld) this.withheld(playerId, now);
        else sockets.slowConsumer(link);
        return false;
      },
      slowConsumer: (link) => sockets.slowConsumer(link),
    };
  }

  private previousTime(i: number): number {
    return i > 0 ? this.log.time(Math.min(i, this.log.count) - 1) : 0;
  }

  private differs(record: number, what: ReplayDifference["what"], expected: string, actual: string): void {
    const time = record < this.log.count ? this.log.time(record) : record > 0 ? this.log.time(this.log.count - 1) : 0;
    this.difference = { record, tick: this.tickIndex, time, what, expected, actual };
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function whatDiffers(theirs: MatchRecord, ours: MatchRecord): ReplayDifference["what"] {
  if (theirs.kind === RecordKind.Flushed && ours.kind === RecordKind.Flushed) return theirs.world !== ours.world ? "world" : theirs.frames !== ours.frames ? "frames" : "record";
  if (theirs.kind === RecordKind.Checkpoint && ours.kind === RecordKind.Checkpoint) return "checkpoint";
  return "record";
}
