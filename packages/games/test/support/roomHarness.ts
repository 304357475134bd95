import { FakeClock, Room, type Connection, type Game, type RoomOptions } from "@tikron/core";
import {
  BinaryWriter,
  ClientView,
  PROTOCOL_VERSION,
  decodeServerMessage,
  encodeHello,
  encodeInputs,
  isDecodeError,
  type ErrorMessage,
  type FrameMessage,
  type Schema,
  type SchemaDecl,
  type ServerMessage,
  type WelcomeMessage,
} from "@tikron/protocol";

/** In-memory socket recording everything the room sends. */
export class FakeConnection implements Connection {
  sent: (Uint8Array | string)[] = [];
  closedWith: { code: number; reason: string } | null = null;
  send(data: Uint8Array | string): void {
    // The room lends its writer's bytes for the duration of the call (Connection.send).
    if (!this.closedWith) this.sent.push(typeof data === "string" ? data : data.slice());
  }
  close(code: number, reason: string): void {
    this.closedWith ??= { code, reason };
  }
  bufferedAmount(): number {
    return 0;
  }
}

const w = new BinaryWriter();

/** A binary-mode player driven by a test: sends inputs with increasing seqs, reads frames. */
export class BinaryClient {
  seq = 0;
  private decoded = 0;
  private readonly messages: ServerMessage[] = [];

  constructor(
    readonly room: Room,
    readonly conn: FakeConnection,
    readonly connId: number,
  ) {}

  /** Everything received so far, decoded. */
  all(): ServerMessage[] {
    for (; this.decoded < this.conn.sent.length; this.decoded++) {
      const data = this.conn.sent[this.decoded];
      if (typeof data === "string") throw new Error("text message on a binary connection");
      const m = decodeServerMessage(data);
      if (isDecodeError(m)) throw m;
      this.messages.push(m);
    }
    return this.messages;
  }

  get welcome(): WelcomeMessage | undefined {
    return this.all().find((m): m is WelcomeMessage => m.kind === "welcome");
  }

  get playerId(): number {
    const wm = this.welcome;
    if (!wm) throw new Error("not seated");
    return wm.playerId;
  }

  frames(): FrameMessage[] {
    return this.all().filter((m): m is FrameMessage => m.kind === "frame");
  }

  errors(): ErrorMessage[] {
    return this.all().filter((m): m is ErrorMessage => m.kind === "error");
  }

  /** Event bodies received, in order. */
  events(): Uint8Array[] {
    return this.frames().flatMap((f) => f.events);
  }

  /** Sends payloads as one INPUT message with the next seqs. */
  send(...payloads: Uint8Array[]): void {
    const inputs = payloads.map((payload) => ({ seq: ++this.seq, payload }));
    this.room.message(this.connId, encodeInputs(w.reset(), inputs).toBytes());
  }

  /** A client-side view with every delta received so far applied (throws on a decode error). */
  view<D extends SchemaDecl>(schema: Schema<D>): ClientView<D> {
    const v = new ClientView(schema);
    for (const f of this.frames()) {
      if (!f.body) continue;
      const err = v.apply(f.body);
      if (err) throw err;
    }
    return v;
  }
}

/** A JSON-mode player: sends `{t:"input"}` messages, reads parsed messages. */
export class JsonClient {
  seq = 0;

  constructor(
    readonly room: Room,
    readonly conn: FakeConnection,
    readonly connId: number,
  ) {}

  all(): any[] {
    return this.conn.sent.map((d) => {
      if (typeof d !== "string") throw new Error("binary message on a JSON connection");
      return JSON.parse(d);
    });
  }

  get playerId(): number {
    const wm = this.all().find((m) => m.t === "welcome");
    if (!wm) throw new Error("not seated");
    return wm.playerId;
  }

  /** The latest state received. */
  state(): any {
    const states = this.all().filter((m) => m.t === "state" && m.state !== undefined);
    return states.at(-1)?.state;
  }

  errors(): { code: number; name: string; reason: string }[] {
    return this.all().filter((m) => m.t === "error");
  }

  send(data: unknown): void {
    this.room.message(this.connId, JSON.stringify({ t: "input", seq: ++this.seq, data }));
  }
}

/** A room on a fake clock with helpers to seat players. */
export class TestRoom<G extends Game> {
  readonly clock: FakeClock;
  readonly room: Room;
  /** Clock time of room time 0 (the welcome's `roomEpoch`). */
  readonly epoch: number;

  constructor(
    readonly game: G,
    options: Partial<RoomOptions> = {},
    clock = new FakeClock(),
  ) {
    this.clock = clock;
    this.epoch = clock.now();
    this.room = new Room({ kind: game.kind, roomId: "test", game, clock, options });
  }

  /** Room time now (what shot timestamps and frame `time` count in). */
  roomTime(): number {
    return this.clock.now() - this.epoch;
  }

  joinBinary(name = "p", token = ""): BinaryClient {
    const conn = new FakeConnection();
    const id = this.room.open(conn);
    this.room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token, name }).toBytes());
    return new BinaryClient(this.room, conn, id);
  }

  joinJson(name = "p", token = ""): JsonClient {
    const conn = new FakeConnection();
    const id = this.room.open(conn);
    this.room.message(id, JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token, name }));
    return new JsonClient(this.room, conn, id);
  }
}

/** Lets queued microtasks (JSON rooms' immediate flushes) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
}
