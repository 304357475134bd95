/**
 * The replay viewer's model, apart from the page (no DOM): a recorded match re-run in the core
 * (`@tikron/core/replay`) to any room time, what each player's client decoded by then (its own
 * frames, through a `ClientView` as the SDK decodes them: its AOI, its tiers) or the whole world,
 * and each player's frame timeline (arrival times, gaps, acks) for the net graph. Seeking forward
 * runs the replay on; seeking back makes it again from the start (a replay only goes forward).
 */
import type { Game, GameDefinition } from "@tikron/core";
import { MatchLog, MatchReplay, RecordKind, type ReplayReport } from "@tikron/core/replay";
import { ClientView, FrameWriter, binaryDialect, jsonDialect, type ClientDialect, type Schema } from "@tikron/protocol";

/** One entity as the viewer draws it. */
export interface ViewedEntity {
  id: number;
  type: string;
  x: number;
  y: number;
  /** Its radius when its record has one (agar's cells). */
  r: number | null;
}

/** One frame a player's client got: the room time it was sent at, and what it carried. */
export interface TimelineFrame {
  /** Room time the frame was sent at (ms). */
  at: number;
  /** The tick it shows. */
  tick: number;
  /** The ack it carried (-1: none). */
  ackSeq: number;
  /** Its bytes on the wire. */
  bytes: number;
}

/** A seated player of the match, as its log's joins name it. */
export interface ReplayPlayer {
  playerId: number;
  name: string;
  bot: boolean;
}

/** What one player's client decoded so far. */
class PlayerSide {
  readonly frames: TimelineFrame[] = [];
  /** A JSON room's last view. */
  json: unknown = null;

  constructor(readonly view: ClientView | null) {}
}

/** The replay viewer's model (see the module comment). */
export class ReplayModel {
  /** The log played. */
  readonly log: MatchLog;
  /** The match's length in room time (ms): its last record's time. */
  readonly duration: number;
  /** Everyone seated during the match, in join order. */
  readonly players: ReplayPlayer[] = [];
  readonly #definition: GameDefinition;
  readonly #schema: Schema | null;
  readonly #dialect: ClientDialect;
  #replay!: MatchReplay;
  #sides = new Map<number, PlayerSide>();

  /**
   * @param schema the kind's entity schema (`agarTypes.schema`), or null for a JSON room.
   * @throws DecodeError for bytes that are not a match log; Error for a log of another kind.
   */
  constructor(definition: GameDefinition, bytes: Uint8Array, schema: Schema | null) {
    this.log = new MatchLog(bytes);
    this.#definition = definition;
    this.#schema = schema;
    this.#dialect = schema ? binaryDialect : jsonDialect;
    this.duration = this.log.count > 0 ? this.log.time(this.log.count - 1) : 0;
    for (let i = 0; i < this.log.count; i++) {
      if (this.log.kind(i) !== RecordKind.Join) continue;
      const r = this.log.record(i) as { playerId: number; name: string; bot: boolean };
      this.players.push({ playerId: r.playerId, name: r.name, bot: r.bot });
    }
    this.#restart();
  }

  /** Room time the replay stands at (ms). */
  get time(): number {
    return this.#replay.time;
  }

  /** The game being replayed (its state at {@link time}). */
  get game(): Game {
    return this.#replay.game;
  }

  /** The tick the replay stands at. */
  get tick(): number {
    return this.#replay.tick;
  }

  /** How the replay went so far (a difference shows a match that does not replay exactly). */
  report(): ReplayReport {
    return this.#replay.report();
  }

  /** Replays to room time `t` (ms); back in time, from the start again. */
  async seek(t: number): Promise<void> {
    if (t < this.time) this.#restart();
    await this.#replay.runToTime(Math.max(0, Math.min(t, this.duration)));
  }

  /** What player `playerId`'s client showed at {@link time}: the entities of its view. */
  viewOf(playerId: number): ViewedEntity[] {
    const view = this.#sides.get(playerId)?.view;
    return view ? entities(view.values()) : [];
  }

  /** A JSON room's view as player `playerId`'s client last got it (null before any). */
  jsonViewOf(playerId: number): unknown {
    return this.#sides.get(playerId)?.json ?? null;
  }

  /** The whole world at {@link time}, as the last flush quantized it (binary rooms). */
  world(): ViewedEntity[] {
    const game = this.game;
    if (!this.#schema || game.sync.mode !== "binary" || !game.sync.encoder.writeWorld) return [];
    const w = new FrameWriter(4096);
    game.sync.encoder.writeWorld(w);
    const view = new ClientView(this.#schema);
    if (w.offset > 0) view.apply(w.peek());
    return entities(view.values());
  }

  /** Player `playerId`'s frames so far, in order. */
  timeline(playerId: number): readonly TimelineFrame[] {
    return this.#sides.get(playerId)?.frames ?? [];
  }

  #restart(): void {
    this.#sides = new Map();
    const replay: MatchReplay = new MatchReplay(this.#definition, this.log, { onSend: (playerId, data) => this.#received(replay, playerId, data) });
    this.#replay = replay;
  }

  #received(replay: MatchReplay, playerId: number, data: Uint8Array | string): void {
    let side = this.#sides.get(playerId);
    if (!side) this.#sides.set(playerId, (side = new PlayerSide(this.#schema ? new ClientView(this.#schema) : null)));
    const m = this.#dialect.decode(data, null);
    if (!m || m instanceof Error) return;
    // A new socket of the seat (a reconnect) starts from a fresh view, as its client does.
    if (m.kind === "welcome") side.view?.clear();
    else if (m.kind === "frame") {
      side.frames.push({ at: replay.time, tick: m.tick, ackSeq: m.ackSeq, bytes: typeof data === "string" ? data.length : data.byteLength });
      if (m.hasState) {
        if (side.view && m.body instanceof Uint8Array) side.view.apply(m.body);
        else if (!side.view) side.json = m.body;
      }
    }
  }
}

function entities(values: Iterable<{ id: number; type: string; record: Record<string, unknown> }>): ViewedEntity[] {
  const out: ViewedEntity[] = [];
  for (const e of values) {
    const rec = e.record;
    if (typeof rec.x !== "number" || typeof rec.y !== "number") continue;
    out.push({ id: e.id, type: e.type, x: rec.x, y: rec.y, r: typeof rec.r === "number" ? rec.r : null });
  }
  return out.sort((a, b) => a.id - b.id);
}
