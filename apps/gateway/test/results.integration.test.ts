/**
 * The persistence recipe under `wrangler dev` with the production config and a local D1 (the
 * `RESULTS` binding, packages/games/migrations): two players finish a ttt-json round, the game
 * writes it to D1 off the tick path (`ctx.env`, `ctx.defer` → `waitUntil`) and the Worker reads
 * the history back at `GET /results/ttt-json/<roomId>`; the round also stays in the room's store,
 * so once the players have left and the empty room was let go (`onDispose`), the next room under
 * the same id shows it to a newcomer. Each player's own record across rooms (`ttt_records`, by
 * identity) is added to in D1 as rounds end, shown to the player, and read back at
 * `GET /records/ttt-json/me` by whoever a credential names.
 */
import { ANY_ROOM, mintRoomTicket } from "@tikron/cloudflare/ticket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { sleep } from "./hardeningClient";
import { freezeWorker, runWrangler, type FrozenWorker } from "./hardeningWorker";

const SECRET = "results-ticket-secret-0123456789";
let server: WranglerDevServer;
let worker: FrozenWorker;

beforeAll(async () => {
  worker = await freezeWorker("wrangler.jsonc");
  server = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: SECRET } });
  const applied = await runWrangler(["d1", "migrations", "apply", "RESULTS", "--local", "--persist-to", `${server.persistDir}/state`, "--config", worker.configPath]);
  if (applied.code !== 0) throw new Error(`applying the RESULTS migrations failed:\n${applied.output}`);
});

afterAll(async () => {
  await server?.stop();
  worker?.remove();
});

interface Round {
  round: number;
  endedAt: number;
  x: string;
  o: string;
  outcome: string;
  forfeit: boolean;
}

interface View {
  board: (string | null)[];
  you: "X" | "O" | null;
  status: string;
  turn: "X" | "O" | null;
  round: number;
  recent: Round[];
  record: { wins: number; losses: number; draws: number } | null;
}

/** A ttt-json player over a plain socket, speaking the JSON dialect with a room ticket. */
class Player {
  readonly ws: WebSocket;
  view: View | null = null;
  welcome: { roomEpoch: number } | null = null;
  readonly errors: string[] = [];
  private seq = 0;

  private constructor(url: string, name: string) {
    this.ws = new WebSocket(url);
    this.ws.on("open", () => this.ws.send(JSON.stringify({ t: "hello", v: 1, token: "", name })));
    this.ws.on("message", (data) => {
      const m = JSON.parse(data.toString()) as { t: string; state?: View; roomEpoch?: number; name?: string };
      if (m.t === "welcome") this.welcome = { roomEpoch: m.roomEpoch! };
      if (m.t === "state" && m.state) this.view = m.state;
      if (m.t === "error") this.errors.push(m.name ?? "?");
    });
  }

  static async join(roomId: string, name: string): Promise<Player> {
    const ticket = await mintRoomTicket({ secret: SECRET, kind: "ttt-json", roomId, playerId: name, ttlSeconds: 600 });
    const p = new Player(`${server.wsUrl}/rooms/ttt-json/${roomId}?ticket=${ticket}`, name);
    await p.until("the first view", (v) => v !== null);
    return p;
  }

  async until(what: string, ok: (v: View | null) => boolean, timeoutMs = 10_000): Promise<View> {
    const deadline = Date.now() + timeoutMs;
    while (!ok(this.view)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; view ${JSON.stringify(this.view)}, errors ${this.errors.join(",")}`);
      await sleep(20);
    }
    return this.view!;
  }

  move(cell: number): void {
    this.ws.send(JSON.stringify({ t: "input", seq: ++this.seq, data: { cell } }));
  }

  leave(): Promise<void> {
    const closed = new Promise<void>((r) => this.ws.once("close", () => r()));
    this.ws.send(JSON.stringify({ t: "leave" }));
    return closed;
  }
}

async function results(roomId: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/results/ttt-json/${roomId}`);
  const text = await res.text();
  return { status: res.status, body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

describe("ttt-json results in D1", () => {
  it("a finished round is written to RESULTS and read back by the Worker; the room's store shows it to the next room under the id", async () => {
    const t0 = Date.now();
    const xena = await Player.join("res1", "xena");
    const otto = await Player.join("res1", "otto");
    await xena.until("the round to start", (v) => v?.status === "playing");
    const [x, o] = xena.view!.you === "X" ? [xena, otto] : [otto, xena];
    // X takes the top row; each move waits for the turn to pass, so the two sockets never race.
    for (const [p, cell] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as const) {
      const before = p.view!.board.filter((c) => c !== null).length;
      p.move(cell);
      await p.until(`move ${cell}`, (v) => (v?.board.filter((c) => c !== null).length ?? 0) > before);
    }
    const won = await x.until("the win", (v) => v?.status === "won");
    expect(won.recent[0]).toMatchObject({ round: 1, outcome: "X", forfeit: false });

    // Written off the tick path; read back through the Worker.
    let got = await results("res1");
    const deadline = Date.now() + 15_000;
    while ((got.status !== 200 || got.body.rounds.length === 0) && Date.now() < deadline) {
      await sleep(250);
      got = await results("res1");
    }
    expect(got.status).toBe(200);
    expect(got.body.roomId).toBe("res1");
    expect(got.body.rounds).toHaveLength(1);
    const row = got.body.rounds[0] as Round;
    expect(row).toMatchObject({ round: 1, outcome: "X", forfeit: false, x: x === xena ? "xena" : "otto", o: o === xena ? "xena" : "otto" });
    expect(row.endedAt).toBeGreaterThanOrEqual(t0);
    expect(row.endedAt).toBeLessThanOrEqual(Date.now());
    expect(won.recent[0]).toEqual(row);
    expect((await results("other")).body.rounds).toEqual([]);
    expect((await results("bad%20id")).status).toBe(400);

    // Everyone leaves; the empty room is let go after its linger (10 s) and its store kept.
    const epoch = xena.welcome!.roomEpoch;
    await Promise.all([xena.leave(), otto.leave()]);
    await sleep(12_500);
    const ann = await Player.join("res1", "ann");
    expect(ann.welcome!.roomEpoch).not.toBe(epoch); // a new room under the same id
    expect(ann.view!.recent).toEqual([row]);
    expect(ann.view!.round).toBe(0);
    await ann.leave();
  });

  it("each identity's own record is kept in D1 across rooms, shown to the player, and read back by its credential at /records/ttt-json/me", async () => {
    const own = async (playerId: string | null) => {
      const headers: Record<string, string> = {};
      if (playerId) headers.authorization = `Bearer ${await mintRoomTicket({ secret: SECRET, kind: "ttt-json", roomId: ANY_ROOM, playerId, ttlSeconds: 60 })}`;
      const res = await fetch(`${server.url}/records/ttt-json/me`, { headers });
      return { status: res.status, body: res.status === 200 ? ((await res.json()) as { identity: string | null; record: View["record"] }) : await res.text() };
    };
    // Nobody in particular has no record; a refused credential is refused as a join would be.
    expect(await own(null)).toEqual({ status: 200, body: { identity: null, record: null } });
    expect((await fetch(`${server.url}/records/ttt-json/me`, { headers: { authorization: "Bearer not.aticket" } })).status).toBe(401);
    expect(await own("rita")).toEqual({ status: 200, body: { identity: "rita", record: { wins: 0, losses: 0, draws: 0 } } });
    for (const [roomId, first, second] of [
      ["rec1", "rita", "sam"],
      ["rec2", "sam", "rita"],
    ] as const) {
      // The first to join sits as X and wins the round: rita wins rec1, sam wins rec2.
      const x = await Player.join(roomId, first);
      const o = await Player.join(roomId, second);
      await x.until("the round to start", (v) => v?.status === "playing" && v.you === "X");
      for (const [p, cell] of [[x, 0], [o, 3], [x, 1], [o, 4], [x, 2]] as const) {
        const before = p.view!.board.filter((c) => c !== null).length;
        p.move(cell);
        await p.until(`move ${cell}`, (v) => (v?.board.filter((c) => c !== null).length ?? 0) > before);
      }
      await x.until("the win in its record", (v) => v?.status === "won" && (v.record?.wins ?? 0) >= 1);
      await Promise.all([x.leave(), o.leave()]);
    }
    // Written off the tick path: read back once both rounds landed.
    const deadline = Date.now() + 15_000;
    let rita = await own("rita");
    while ((rita.body as { record: View["record"] }).record?.losses !== 1 && Date.now() < deadline) {
      await sleep(250);
      rita = await own("rita");
    }
    expect(rita).toEqual({ status: 200, body: { identity: "rita", record: { wins: 1, losses: 1, draws: 0 } } });
    expect((await own("sam")).body).toEqual({ identity: "sam", record: { wins: 1, losses: 1, draws: 0 } });
    // A player joining later sees its own record from the start.
    const again = await Player.join("rec3", "rita");
    expect((await again.until("its record", (v) => v?.record !== null && v?.record !== undefined)).record).toEqual({ wins: 1, losses: 1, draws: 0 });
    await again.leave();
  });
});
