/**
 * What the replay property tests drive: a recorded `TestRoom` of one demo game played by a
 * list of random steps (joins, inputs as the codec writes them and as no codec would, time
 * passing, leaves, dropped sockets, reconnects, game messages), the world it showed at each
 * step, and every message each player's client read. `replayed` re-runs the log and returns the
 * same things seen from the replay.
 */
import fc from "fast-check";
import { type Game, type GameDefinition, type RoomOptions } from "@tikron/core";
import { MemoryRecording, TestRoom, type TestClient } from "@tikron/core/testing";
import { MatchReplay, type ReplayReport } from "@tikron/core/replay";
import { FrameWriter, requestsOf, type AnyGameTypes, type InputOf } from "@tikron/protocol";

/** One thing that happens in a recorded match. */
export type Step<I> =
  | { t: "join"; name: string; identity: number | null; mark: "X" | "O" | null }
  | { t: "input"; who: number; values: I[] }
  | { t: "raw"; who: number; payload: Uint8Array | number[] }
  | { t: "advance"; ms: number }
  | { t: "leave" | "drop" | "reconnect"; who: number }
  | { t: "message"; who: number; type: string };

/** The steps of a match of a game whose inputs `input` draws. */
export function steps<I>(input: fc.Arbitrary<I>, json: boolean): fc.Arbitrary<Step<I>[]> {
  const who = fc.nat({ max: 7 });
  const step: fc.Arbitrary<Step<I>> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant("join" as const),
        name: fc.string({ maxLength: 5 }),
        // A verified identity (with claims) or an anonymous one the room draws; two joins of one identity share its seat.
        identity: fc.option(fc.nat({ max: 3 }), { nil: null }),
        // ttt-json's join option (the seat asked for); the other kinds declare none.
        mark: json ? fc.option(fc.constantFrom("X" as const, "O" as const), { nil: null }) : fc.constant(null),
      }),
    },
    { weight: 6, arbitrary: fc.record({ t: fc.constant("input" as const), who, values: fc.array(input, { minLength: 1, maxLength: 3 }) }) },
    {
      weight: 1,
      arbitrary: fc.record({ t: fc.constant("raw" as const), who, payload: json ? fc.array(fc.integer({ min: -1, max: 9 }), { maxLength: 2 }) : fc.uint8Array({ maxLength: 13 }) }),
    },
    { weight: 5, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 160 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constantFrom("leave" as const, "drop" as const, "reconnect" as const), who }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("message" as const), who, type: fc.constantFrom("chat", "ready") }) },
  );
  return fc.array(step, { minLength: 1, maxLength: 24 });
}

/** Room options worth varying: flush slices, short reconnection windows (seats freed by expiry), inputs applied at once. */
export function roomOptions(ticking: boolean): fc.Arbitrary<Partial<RoomOptions>> {
  return fc.record({
    flushSliceClients: fc.constantFrom(0, 1, 2),
    reconnectWindowMs: fc.constantFrom(90, 400, 15_000),
    queueInputs: ticking ? fc.boolean() : fc.constant(true),
    checkpointMs: fc.constantFrom(0, 5_000),
  });
}

/** The world as a game's clients could see all of it: its entities (binary rooms), its checkpoint (JSON rooms). */
export function worldOf(game: Game): string {
  if (game.sync.mode === "json") return JSON.stringify(game.checkpoint?.() ?? null);
  const w = new FrameWriter(1024);
  game.sync.encoder.writeWorld?.(w);
  return Buffer.from(w.peek()).toString("base64");
}

/**
 * A frame (or a JSON room's state) or a notice: what the game sent. Welcomes (a reconnect token
 * of each run's own) and errors (the answers of the guards a replay lifts) are not compared.
 */
export function isStateMessage(data: Uint8Array | string): boolean {
  if (typeof data === "string") return data.startsWith('{"t":"state"') || data.startsWith('{"t":"notice"');
  return data[0] === 0x82 || data[0] === 0x88;
}

/** A played match: its log, the world after each step (by room time), every player's messages. */
export interface PlayedMatch {
  log: Uint8Array;
  worlds: { time: number; world: string }[];
  /** Every frame and notice each player id's clients read, in order. */
  messages: Map<number, (Uint8Array | string)[]>;
}

/**
 * What each player's sockets read, socket by socket: a seat has one socket at a time, so its
 * messages in the order the room sent them are its sockets' in the order they were welcomed
 * (the step each welcome came in), whichever test client holds each.
 */
class Connections {
  readonly #read = new Map<object, number>();
  readonly #current = new Map<object, { step: number; playerId: number; messages: (Uint8Array | string)[] }>();
  readonly #all: { step: number; playerId: number; messages: (Uint8Array | string)[] }[] = [];

  constructor(private readonly types: AnyGameTypes) {}

  /** Files what each client read since the last call (`step`: the step just played). */
  read(clients: readonly TestClient<AnyGameTypes>[], step: number): void {
    for (const c of clients) {
      const raw = c.raw;
      for (let i = this.#read.get(c) ?? 0; i < raw.length; i++) {
        const data = raw[i]!;
        const m = this.types.dialect.decode(data, null);
        if (m && !(m instanceof Error) && m.kind === "welcome") {
          const conn = { step, playerId: m.playerId, messages: [] };
          this.#all.push(conn);
          this.#current.set(c, conn);
        } else if (isStateMessage(data)) this.#current.get(c)?.messages.push(data);
      }
      this.#read.set(c, raw.length);
    }
  }

  /** Each player's messages, its sockets in the order they were welcomed. */
  byPlayer(): Map<number, (Uint8Array | string)[]> {
    const out = new Map<number, (Uint8Array | string)[]>();
    for (const conn of [...this.#all].sort((a, b) => a.step - b.step)) {
      if (conn.messages.length > 0) (out.get(conn.playerId) ?? out.set(conn.playerId, []).get(conn.playerId)!).push(...conn.messages);
    }
    return out;
  }
}

/** Plays `list` in a recorded room of `definition` and returns what it recorded and showed. */
export async function play<G extends AnyGameTypes>(definition: GameDefinition, types: G, list: Step<InputOf<G>>[], seed: number, overrides: Partial<RoomOptions>): Promise<PlayedMatch> {
  const recording = new MemoryRecording();
  const t = new TestRoom(definition, types, { recording, seed, overrides });
  const clients: TestClient<G>[] = [];
  const worlds: PlayedMatch["worlds"] = [];
  const connections = new Connections(types);
  let step = 0;
  const open = (who: number): TestClient<G> | undefined => {
    const c = clients[who % Math.max(1, clients.length)];
    return c && !c.closed ? c : undefined;
  };
  for (const s of list) {
    switch (s.t) {
      case "join": {
        const identity = s.identity === null ? undefined : `player-${s.identity}`;
        clients.push(t.join(s.name, { identity, claims: identity ? { name: `signed ${s.name}` } : undefined, joinOptions: (s.mark ? { mark: s.mark } : undefined) as never }));
        break;
      }
      case "input":
        open(s.who)?.input(...s.values);
        break;
      case "raw":
        open(s.who)?.inputPayloads(s.payload instanceof Uint8Array ? s.payload : { cell: s.payload[0] });
        break;
      case "advance":
        worlds.push({ time: t.time, world: worldOf(t.game) });
        t.advance(s.ms);
        break;
      case "leave":
        open(s.who)?.leave();
        break;
      case "drop":
        open(s.who)?.drop();
        break;
      case "reconnect":
        if (clients.length > 0) clients[s.who % clients.length]!.reconnect();
        break;
      case "message":
        open(s.who)?.sendRaw(requestsOf(types.dialect).message(0, s.type, '{"text":"hi"}'));
        break;
    }
    await t.settle();
    connections.read(clients, step++);
  }
  t.advance(100);
  await t.settle();
  connections.read(clients, step);
  worlds.push({ time: t.time, world: worldOf(t.game) });
  t.room.dispose();
  return { log: recording.log(), worlds, messages: connections.byPlayer() };
}

/** What the replay of a played match showed: the report, the world at each of the match's step times, each player's messages. */
export async function replayed(definition: GameDefinition, match: PlayedMatch): Promise<{ report: ReplayReport; worlds: string[]; messages: Map<number, (Uint8Array | string)[]> }> {
  const messages = new Map<number, (Uint8Array | string)[]>();
  const replay = new MatchReplay(definition, match.log, {
    onSend: (playerId, data) => {
      if (isStateMessage(data)) (messages.get(playerId) ?? messages.set(playerId, []).get(playerId)!).push(data);
    },
  });
  const worlds: string[] = [];
  for (const w of match.worlds) {
    await replay.runToTime(w.time);
    worlds.push(worldOf(replay.game));
  }
  return { report: await replay.run(), worlds, messages };
}
