/**
 * Records the golden files every client of the protocol is tested against (docs/protocol.md,
 * "Golden files"): real rooms of the core (`@tikron/core/testing`, on a fake clock, seeded games)
 * with one recording client on an in-memory socket. Each file holds every message that client
 * exchanged, in order, as bytes (hex) or text, and beside each server message what a client must
 * decode from it: the welcome's fields, a frame's header, its decoded events and every entity in
 * view after it, an error's, a reply's, a notice's. The inputs carry the bytes the game's codec
 * must encode each value to. `client-messages.json` holds what each dialect writes for every
 * client message.
 *
 * The TypeScript SDK's test (`golden.test.ts`) records them again from the current code and
 * compares, and decodes them with the SDK's decoders; the C# tests (packages/client-dotnet)
 * decode and encode the same files. So a protocol change that one client misses fails a test.
 * Write them again with `npm run golden` after a deliberate change, and update every client.
 */
import {
  BinaryWriter,
  ClientView,
  ReceiptCounter,
  binaryDialect,
  binaryRequests,
  decodeServerMessage,
  decodeServerText,
  encodeWelcome,
  isDecodeError,
  jsonDialect,
  jsonRequests,
  readAnswer,
  toJsonWelcome,
  type AnyGameTypes,
  type ClientDialect,
  type DecodedServerMessage,
  type EventSchema,
  type Schema,
} from "@tikron/protocol";
import type { Connection, Game, RoomOptions } from "@tikron/core";
import { TestRoom } from "@tikron/core/testing";
import { AgarGame, FpsGame, MovementGame, TicTacToeGame, agarTypes, fpsTypes, movementTypes, tttTypes } from "@tikron/games";
import { DotsGame, dotsTypes } from "../../packages/core/test/testing/games";

/** One message of a golden file. */
export interface GoldenMessage {
  /** Who sent it. */
  from: "server" | "client";
  /** Binary messages: the bytes, as hex. */
  hex?: string;
  /** Text messages (the JSON dialect). */
  text?: string;
  /** Server messages: what a client must decode from it. */
  decoded?: unknown;
  /** Client messages: what it says (`hello`, `input`, `receipt`, `message`, …). */
  what?: string;
}

/** One input: the game's value and the payload its codec must encode it to. */
export interface GoldenInput {
  /** The input as the game's declaration takes it. */
  value: unknown;
  /** Binary rooms: the payload's bytes as hex. JSON rooms: the JSON value sent. */
  payload: unknown;
}

/** A golden file. */
export interface Golden {
  /** The scenario. */
  name: string;
  /** The room kind. */
  kind: string;
  /** The dialect spoken. */
  dialect: "binary" | "json";
  /** The schema hash the welcome carries (0 in JSON rooms). */
  schemaHash: number;
  /** Every message, in order. */
  messages: GoldenMessage[];
  /** Inputs the recording client sent, with their payloads. */
  inputs: GoldenInput[];
}

/** Stands for the welcome's reconnect token (random in a room): every recording says this one. */
export const GOLDEN_TOKEN = "golden-token-0123456789abcdefghi";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** An entity in view, as a golden file writes it: maps as objects, sorted by key. */
function entityJson(e: { id: number; type: string; record: Record<string, unknown> }): unknown {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.record)) {
    fields[k] = v instanceof Map ? Object.fromEntries([...v.entries()].sort((a, b) => a[0] - b[0]).map(([mk, mv]) => [String(mk), mv])) : v;
  }
  return { id: e.id, type: e.type, fields };
}

/** A declared event as a golden file writes it. */
function eventJson(events: EventSchema | null, body: Uint8Array): unknown {
  if (!events) return { hex: hex(body) };
  const e = events.decode(body);
  if (isDecodeError(e)) throw e;
  return e;
}

/** The recording client: a socket that keeps every message, with receipts like every real client. */
class Recorder implements Connection {
  readonly messages: GoldenMessage[] = [];
  readonly #receipts = new ReceiptCounter();
  readonly #view: ClientView | null;
  closed: { code: number; reason: string } | null = null;
  connId = -1;

  constructor(
    readonly room: TestRoom<AnyGameTypes>,
    readonly dialect: ClientDialect,
    readonly schema: Schema | null,
  ) {
    this.#view = schema ? new ClientView(schema) : null;
  }

  send(data: Uint8Array | string): void {
    if (this.closed) return;
    const m = this.dialect.decode(typeof data === "string" ? data : data.slice(), readAnswer);
    if (m === null) return;
    if (isDecodeError(m)) throw m;
    let text = typeof data === "string" ? data : undefined;
    let bytes: Uint8Array | undefined = typeof data === "string" ? undefined : data.slice();
    // The token is random: every recording says the same one.
    if (m.kind === "welcome") {
      const fields = { ...m, token: GOLDEN_TOKEN };
      if (bytes) bytes = encodeWelcome(new BinaryWriter(64), fields).toBytes();
      else text = JSON.stringify(toJsonWelcome(fields));
    }
    this.messages.push({ from: "server", ...(bytes ? { hex: hex(bytes) } : { text }), decoded: this.#decoded(bytes ?? text!) });
    if (this.#receipts.read(this, bytes ?? text)) this.post(this.dialect.receipt(this.#receipts.messages, this.#receipts.units), "receipt");
  }

  close(code: number, reason: string): void {
    this.closed ??= { code, reason };
  }

  bufferedAmount(): number {
    return 0;
  }

  /** Sends a client message to the room, recorded. */
  post(data: Uint8Array | string, what: string): void {
    this.messages.push({ from: "client", what, ...(typeof data === "string" ? { text: data } : { hex: hex(data) }) });
    this.room.room.message(this.connId, data);
  }

  /** What a client decodes from one server message (the view applied, for frames). */
  #decoded(data: Uint8Array | string): unknown {
    const m = (typeof data === "string" ? decodeServerText(data) : decodeServerMessage(data)) as DecodedServerMessage;
    if (isDecodeError(m)) throw m;
    switch (m.kind) {
      case "welcome":
        // A (re)join starts from an empty baseline.
        this.#view?.clear();
        return m;
      case "frame": {
        const events = this.schema?.events ?? null;
        if (typeof data === "string") return { kind: "frame", tick: m.tick, time: m.time, ackSeq: m.ackSeq, hasState: m.hasState, state: m.body, events: m.events };
        if (m.hasState && this.#view) {
          const err = this.#view.apply(m.body as Uint8Array);
          if (err) throw err;
        }
        return {
          kind: "frame",
          tick: m.tick,
          time: m.time,
          ackSeq: m.ackSeq,
          hasState: m.hasState,
          events: (m.events as Uint8Array[]).map((b) => eventJson(events, b)),
          entities: this.#view ? [...this.#view.values()].sort((a, b) => a.id - b.id).map(entityJson) : [],
        };
      }
      default:
        return m;
    }
  }
}

/** What a scenario can do: the room, the recording client, its inputs. */
interface Script {
  room: TestRoom<AnyGameTypes>;
  rec: Recorder;
  input(value: unknown): void;
  advance(ms: number): void;
}

function record(name: string, types: AnyGameTypes, game: Game, overrides: Partial<RoomOptions>, script: (s: Script) => void | Promise<void>): Promise<Golden> {
  const room = new TestRoom(game, types, { roomId: `golden-${name}`, overrides });
  const rec = new Recorder(room, types.dialect, types.schema);
  const inputs: GoldenInput[] = [];
  let seq = 0;
  const w = new BinaryWriter(64);
  const open = (): void => {
    rec.connId = room.room.open(rec);
    rec.post(types.dialect.hello("", "rec"), "hello");
  };
  const s: Script = {
    room,
    rec,
    input(value) {
      const payload = types.encodeInput(value, w);
      const copy = payload instanceof Uint8Array ? payload.slice() : payload;
      inputs.push({ value, payload: copy instanceof Uint8Array ? hex(copy) : copy });
      rec.post(types.dialect.input(++seq, copy), "input");
    },
    advance(ms) {
      room.advance(ms);
    },
  };
  open();
  return Promise.resolve(script(s)).then(() => {
    rec.post(types.dialect.leave(), "leave");
    return { name, kind: types.kind, dialect: types.json ? "json" : "binary", schemaHash: types.schema?.hash ?? 0, messages: rec.messages, inputs };
  });
}

/** Every golden scenario, recorded from the current code. */
export async function recordAll(): Promise<Golden[]> {
  const out: Golden[] = [];
  // agar: cells and orbs coming into and out of view, updates of moving cells, a name.
  out.push(
    await record("agar", agarTypes, new AgarGame({ seed: 7, world: 600, orbs: 24, aoiRadius: 220 }), { tickMs: 50, syncIntervalMs: 50 }, (s) => {
      const others = [s.room.join("ann"), s.room.join("bob")];
      const steer = [
        { dx: 1, dy: 0, boost: false },
        { dx: 0.6, dy: 0.8, boost: true },
        { dx: -1, dy: 0.25, boost: false },
        { dx: 0, dy: -1, boost: false },
      ];
      for (let i = 0; i < 24; i++) {
        s.input(steer[Math.floor(i / 6)]);
        others[i % 2]!.input({ dx: i % 3 === 0 ? -1 : 1, dy: 0.5, boost: i % 5 === 0 });
        s.advance(100);
      }
    }),
  );
  // movement: the smallest schema, steady deltas.
  out.push(
    await record("movement", movementTypes, new MovementGame({ seed: 3, world: 800 }), { tickMs: 50, syncIntervalMs: 100 }, (s) => {
      const ann = s.room.join("ann");
      for (let i = 0; i < 12; i++) {
        s.input({ dx: i < 6 ? 1 : 0, dy: i < 6 ? 0 : -1, sprint: i % 4 === 0 });
        ann.input({ dx: -1, dy: 0, sprint: false });
        s.advance(100);
      }
    }),
  );
  // fps: declared events (tracers, kills), maps (the scoreboard), angles, hp.
  out.push(
    await record("fps", fpsTypes, new FpsGame({ seed: 5, world: 300 }), { tickMs: 50, syncIntervalMs: 50 }, (s) => {
      const ann = s.room.join("ann");
      for (let i = 0; i < 40; i++) {
        // ann aims at the first other player she sees.
        let mine: { x: number; y: number } | undefined;
        let target: { x: number; y: number } | undefined;
        for (const e of ann.state.values()) {
          if (e.type !== "player") continue;
          if (e.record.pid === ann.playerId) mine = e.record;
          else target ??= e.record;
        }
        const aim = mine && target ? Math.atan2(target.y - mine.y, target.x - mine.x) : 0;
        ann.input({ kind: "shot", time: Math.max(0, s.room.time - 100), aim });
        s.input({ kind: "move", dx: 0.5, dy: -0.5, dtMs: 50, aim: i / 7 });
        s.advance(50);
      }
    }),
  );
  // dots: declared events to one player, room messages (a reply, a refusal), notices, a refused input, the room's new rates.
  out.push(
    await record("dots", dotsTypes, new DotsGame(), { tickMs: 50, syncIntervalMs: 50, cap: 4 }, async (s) => {
      const ann = s.room.join("ann");
      s.advance(100);
      s.input({ dx: 1 });
      ann.input({ dx: -1 });
      s.advance(100);
      s.rec.post(binaryRequests.message(1, "echo", JSON.stringify({ n: 7 })), "message");
      s.rec.post(binaryRequests.message(2, "echo", JSON.stringify({ n: -1 })), "message");
      s.rec.post(binaryRequests.message(0, "shout", JSON.stringify({ text: "hé ☃" })), "message");
      s.rec.post(binaryDialect.input(9, new Uint8Array([7])), "input");
      s.rec.post(binaryDialect.ping(12345.5), "ping");
      s.advance(100);
      (s.room.game as DotsGame).ctx.setRates({ syncIntervalMs: 100 });
      s.input({ dx: 1 });
      s.advance(300);
      await s.room.settle();
    }),
  );
  // ttt-json: the JSON dialect (welcome, state views, an error, a reply-free game).
  out.push(
    await record("ttt-json", tttTypes, new TicTacToeGame(), {}, async (s) => {
      const ann = s.room.join("ann");
      await s.room.settle();
      // No round ends: a finished round's result carries the wall clock.
      for (const [mine, hers] of [[4, 1], [0, 2]] as const) {
        s.input({ cell: mine });
        await s.room.settle();
        ann.input({ cell: hers });
        await s.room.settle();
      }
      s.input({ cell: 99 });
      s.rec.post(jsonDialect.ping(12345.5), "ping");
      await s.room.settle();
    }),
  );
  return out;
}

/** What each dialect writes for every client message (the C# SDK's encoders are held to these bytes). */
export function clientMessages(): unknown[] {
  const cases: { what: string; args: unknown[]; binary: Uint8Array; json: string }[] = [];
  const both = (what: string, args: unknown[], b: (d: ClientDialect) => string | Uint8Array): void => {
    cases.push({ what, args, binary: b(binaryDialect) as Uint8Array, json: b(jsonDialect) as string });
  };
  both("hello", ["", "ann"], (d) => d.hello("", "ann"));
  both("hello", ["tok-123", "Zoë ☃"], (d) => d.hello("tok-123", "Zoë ☃"));
  both("hello", ["", "ann", { mark: "X", level: 3 }], (d) => d.hello("", "ann", { mark: "X", level: 3 }));
  both("ping", [1234.5], (d) => d.ping(1234.5));
  both("receipt", [16, 5000], (d) => d.receipt(16, 5000));
  both("receipt", [4294967297, 4294967296 + 300], (d) => d.receipt(4294967297, 4294967296 + 300));
  both("leave", [], (d) => d.leave());
  cases.push({ what: "input", args: [1, "00010203"], binary: binaryDialect.input(1, new Uint8Array([0, 1, 2, 3])) as Uint8Array, json: jsonDialect.input(1, { cell: 4 }) as string });
  cases.push({ what: "input", args: [300, "ff"], binary: binaryDialect.input(300, new Uint8Array([255])) as Uint8Array, json: jsonDialect.input(300, { cell: 0 }) as string });
  cases.push({ what: "stats", args: [7], binary: binaryRequests.statsRequest(7) as Uint8Array, json: jsonRequests.statsRequest(7) as string });
  cases.push({ what: "message", args: [3, "chat", '{"text":"hi"}'], binary: binaryRequests.message(3, "chat", '{"text":"hi"}') as Uint8Array, json: jsonRequests.message(3, "chat", '{"text":"hi"}') as string });
  cases.push({ what: "message", args: [0, "ready", "true"], binary: binaryRequests.message(0, "ready", "true") as Uint8Array, json: jsonRequests.message(0, "ready", "true") as string });
  return cases.map((c) => ({ what: c.what, args: c.args, hex: hex(c.binary), json: c.json }));
}
