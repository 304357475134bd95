/**
 * The example rooms (`movement`, `fps`, `ttt-json`) under a real `wrangler dev`: real `ws`
 * clients join, play, receive state, and the room's `tk:stats` counts what they did. The
 * server is stopped (its whole process group) in afterAll, whatever happened before.
 */
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinaryWriter, ClientView, ErrorCode, PROTOCOL_VERSION, isDecodeError, type Schema, type SchemaDecl } from "@tikron/protocol";
import {
  decodeFpsEvent,
  encodeFpsMove,
  encodeFpsShot,
  encodeMovementInput,
  FPS_PRESETS,
  fpsSchema,
  movementSchema,
  type FpsEvent,
} from "@tikron/games/schemas";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { RawClient, sleep } from "./support/rawClient";

let server: WranglerDevServer | undefined;
const sockets: { close(): void }[] = [];

beforeAll(async () => {
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
});

afterAll(async () => {
  for (const s of sockets) s.close();
  await server?.stop();
});

function open(path: string): RawClient {
  const c = new RawClient(server!.wsUrl + path);
  sockets.push(c);
  return c;
}

async function until(cond: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await sleep(20);
  return cond();
}

function viewOf<D extends SchemaDecl>(c: RawClient, schema: Schema<D>): ClientView<D> {
  const view = new ClientView(schema);
  for (const f of c.frames) if (f.frame.delta) expect(view.apply(f.frame.delta)).toBeNull();
  return view;
}

function eventsOf(c: RawClient): FpsEvent[] {
  return c.frames.flatMap((f) =>
    f.frame.events.map((b) => {
      const e = decodeFpsEvent(b);
      if (isDecodeError(e)) throw e;
      return e;
    }),
  );
}

/** JSON text-mode client (ttt-json). */
class JsonClient {
  readonly ws: WebSocket;
  readonly messages: any[] = [];
  closed: number | null = null;
  private seq = 0;
  private readonly opened: Promise<void>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
    });
    this.ws.on("error", () => {});
    this.ws.on("close", (code) => (this.closed = code));
    this.ws.on("message", (data, isBinary) => {
      if (!isBinary) this.messages.push(JSON.parse(data.toString()));
    });
    sockets.push(this);
  }

  async join(name: string): Promise<any> {
    await this.opened;
    this.ws.send(JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name }));
    await until(() => this.messages.some((m) => m.t === "welcome") || this.closed !== null, 10_000);
    return this.messages.find((m) => m.t === "welcome");
  }

  input(data: unknown): void {
    this.ws.send(JSON.stringify({ t: "input", seq: ++this.seq, data }));
  }

  state(): any {
    return this.messages.filter((m) => m.t === "state" && m.state !== undefined).at(-1)?.state;
  }

  errors(): any[] {
    return this.messages.filter((m) => m.t === "error");
  }

  async stats(): Promise<any> {
    this.ws.send(JSON.stringify({ t: "stats", id: 1 }));
    await until(() => this.messages.some((m) => m.t === "stats"));
    return this.messages.find((m) => m.t === "stats")?.stats;
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }
}

describe("example rooms under wrangler dev", () => {
  it("movement: every player sees every player; inputs acked; tk:stats counts them", async () => {
    const room = `/rooms/movement/it-${Date.now()}`;
    const players = [open(room), open(room), open(room)];
    const welcomes = await Promise.all(players.map((p, i) => p.join(`m${i}`)));
    for (const wm of welcomes) expect(wm).toMatchObject({ roomKind: "movement", cap: 64, tickMs: 50, syncIntervalMs: 50, schemaHash: movementSchema.hash });
    const w = new BinaryWriter();
    const started = performance.now();
    for (let k = 0; performance.now() - started < 2000; k++) {
      for (const p of players) p.sendInput(encodeMovementInput(w, { dx: Math.cos(k / 5), dy: Math.sin(k / 5), sprint: false }));
      await sleep(50);
    }
    await sleep(300);
    for (const p of players) {
      expect(p.errors).toEqual([]);
      expect(p.highestAck).toBe(p.lastSeq);
      expect(viewOf(p, movementSchema).size).toBe(3);
    }
    const stats = await players[0]!.stats();
    const sent = players.reduce((a, p) => a + p.lastSeq, 0);
    expect(stats).toMatchObject({ kind: "movement", ccu: 3 });
    expect(stats.inputs).toMatchObject({ received: sent, processed: sent, rejected: 0 });
  });

  it("fps: shots hit, kill and score; a speed hack is refused and counted", async () => {
    // A 100-unit arena (DEV_MODE override) keeps both players inside each other's AOI.
    const room = `/rooms/fps/it-${Date.now()}?world=100`;
    const shooter = open(room);
    const target = open(room);
    for (const p of [shooter, target]) {
      expect(await p.join("f")).toMatchObject({ roomKind: "fps", cap: 100, ...FPS_PRESETS.hz30, schemaHash: fpsSchema.hash });
    }
    const me = shooter.welcome!.playerId;
    const them = target.welcome!.playerId;
    expect(await until(() => viewOf(shooter, fpsSchema).size === 3)).toBe(true);

    const w = new BinaryWriter();
    for (let i = 0; i < 4; i++) {
      const view = viewOf(shooter, fpsSchema);
      const players = [...view.values()].filter((e) => e.type === "player").map((e) => e.record as { pid: number; x: number; y: number });
      const a = players.find((p) => p.pid === me)!;
      const b = players.find((p) => p.pid === them)!;
      // Timed at the newest frame the shooter holds: the world it is looking at.
      const seen = shooter.frames.at(-1)!.frame.time;
      shooter.sendInput(encodeFpsShot(w, { time: seen, aim: Math.atan2(b.y - a.y, b.x - a.x) }));
      await sleep(200);
    }
    expect(await until(() => eventsOf(target).some((e) => e.kind === "kill"))).toBe(true);
    expect(eventsOf(shooter).filter((e) => e.kind === "tracer" && e.hit === them)).toHaveLength(4);
    expect(eventsOf(shooter).find((e) => e.kind === "kill")).toEqual({ kind: "kill", killer: me, victim: them });
    await sleep(100);
    const board = [...viewOf(target, fpsSchema).values()].find((e) => e.type === "scoreboard")!.record as { kills: Map<number, number>; deaths: Map<number, number> };
    expect(board.kills.get(me)).toBe(1);
    expect(board.deaths.get(them)).toBe(1);

    // 20 steps of 100 ms at once: 2 s of movement claimed in an instant.
    for (let i = 0; i < 20; i++) shooter.sendInput(encodeFpsMove(w, { dx: 1, dy: 0, dtMs: 100, aim: 0 }));
    expect(await until(() => shooter.highestAck === shooter.lastSeq)).toBe(true);
    expect(shooter.errors.filter((e) => e.code === ErrorCode.speed_violation).length).toBeGreaterThan(10);

    const stats = await shooter.stats();
    expect(stats).toMatchObject({ kind: "fps", ccu: 2, game: { shots: 4, hits: 4, kills: 1 } });
    expect(stats.inputs.rejectedByCode.speed_violation).toBeGreaterThan(10);
  });

  it("ttt-json: seats two, enforces turns, ends the round, rematches; tk:stats counts", async () => {
    const room = `${server!.wsUrl}/rooms/ttt-json/it-${Date.now()}`;
    const x = new JsonClient(room);
    const o = new JsonClient(room);
    expect(await x.join("x")).toMatchObject({ roomKind: "ttt-json", cap: 2 });
    expect(await o.join("o")).toMatchObject({ roomKind: "ttt-json", cap: 2 });
    expect(await until(() => x.state()?.status === "playing")).toBe(true);
    expect(x.state().you).toBe("X");

    o.input({ cell: 0 });
    expect(await until(() => o.errors().length === 1)).toBe(true);
    expect(o.errors()[0]).toMatchObject({ code: ErrorCode.not_your_turn, name: "not_your_turn" });

    for (const [c, cell] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as const) {
      const before = c.messages.length;
      c.input({ cell });
      await until(() => c.messages.length > before);
    }
    expect(await until(() => o.state()?.status === "won")).toBe(true);
    expect(o.state()).toMatchObject({ winner: "X", line: [0, 1, 2] });
    o.input({ cell: 8 });
    expect(await until(() => o.errors().length === 2)).toBe(true);
    expect(o.errors()[1]).toMatchObject({ code: ErrorCode.illegal_move });

    x.input({ rematch: true });
    o.input({ rematch: true });
    expect(await until(() => x.state()?.round === 2)).toBe(true);
    expect(x.state()).toMatchObject({ status: "playing", turn: "O", board: Array(9).fill(null) });

    const stats = await x.stats();
    expect(stats).toMatchObject({ kind: "ttt-json", ccu: 2, loopRunning: false, ticks: 0, game: { moves: 5, rounds: 2 } });
    expect(stats.inputs.rejectedByCode).toEqual({ not_your_turn: 1, illegal_move: 1 });
  });
});
