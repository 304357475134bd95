/**
 * The room protocol, host-independent: the same tests run against every host of the core's
 * `Room` — `wrangler dev` (apps/gateway/test/roomProtocol.integration.test.ts) and the Node
 * host (packages/node/test/roomProtocol.test.ts). Real `ws` clients join the real game rooms,
 * play, receive state, and check what the room's `tk:stats` counted. What is specific to one
 * host (workerd's bufferedAmount, hibernation, restarts, tickets) is tested with that host.
 * Joins the host refuses are also tried through the SDK (`@tikron/client`) over Node's own
 * WebSocket, which reports a refused upgrade with no close at all.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect, JoinError, type RoomConnection } from "@tikron/client";
import { BinaryWriter, ClientView, CloseCode, ErrorCode, isDecodeError, type Schema, type SchemaDecl, jsonDialect } from "@tikron/protocol";
import { agarInputs, agarSchema, FPS_PRESETS, fpsEvents, fpsInputs, fpsSchema, movementInputs, movementSchema, type FpsEvent } from "@tikron/games/schemas";
import { JsonClient, until } from "./jsonClient";
import { RawClient, frameGaps, median, sleep } from "./rawClient";
import { describePlayers } from "./players";
import { describeSpectators } from "./spectators";

function viewOf<D extends SchemaDecl>(c: RawClient, schema: Schema<D>): ClientView<D> {
  const view = new ClientView(schema);
  for (const f of c.frames) if (f.frame.body) expect(view.apply(f.frame.body)).toBeNull();
  return view;
}

/** 20 Hz movement inputs from every player for `ms`, then the last tick's flush; returns when it started. */
async function steerMovement(players: readonly RawClient[], ms: number): Promise<number> {
  const w = new BinaryWriter();
  const started = performance.now();
  for (let k = 0; performance.now() - started < ms; k++) {
    for (const p of players) p.sendInput(movementInputs.encode({ dx: Math.cos(k / 5), dy: Math.sin(k / 5), sprint: false }, w));
    await sleep(50);
  }
  await sleep(300);
  return started;
}

function eventsOf(c: RawClient): FpsEvent[] {
  return c.frames.flatMap((f) =>
    f.frame.events.map((b) => {
      const e = fpsEvents.decode(b);
      if (isDecodeError(e)) throw e;
      return e;
    }),
  );
}

/**
 * Registers the protocol tests for one host. `wsUrl` is read when a test runs, so the host may
 * be started in the caller's `beforeAll`.
 */
export function describeRoomProtocol(hostName: string, wsUrl: () => string): void {
  const sockets: { close(): void }[] = [];
  afterAll(() => {
    for (const s of sockets) s.close();
  });
  const open = (path: string): RawClient => {
    const c = new RawClient(wsUrl() + path);
    sockets.push(c);
    return c;
  };
  const openJson = (path: string): JsonClient => {
    const c = new JsonClient(wsUrl() + path);
    sockets.push(c);
    return c;
  };
  const fresh = (kind: string, tag: string) => `/rooms/${kind}/${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  /** An SDK connection over Node's global WebSocket; `query` goes on the base URL (DEV_MODE overrides). */
  const sdk = (kind: string, room: string, query = ""): RoomConnection => {
    const conn = connect(wsUrl() + query, { kind, room, reconnect: { baseMs: 50, maxMs: 100 } });
    sockets.push(conn);
    return conn;
  };
  /** How long a join took to fail, and the error it failed with (null if it joined). */
  const joinFailure = async (conn: RoomConnection): Promise<{ ms: number; error: unknown }> => {
    const t0 = performance.now();
    const error = await conn.whenJoined().then(
      () => null,
      (e: unknown) => e,
    );
    return { ms: performance.now() - t0, error };
  };

  describe(`room protocol on ${hostName}`, () => {
    it("agar: welcomes, acks every input, streams state at the configured cadence, and reports tk:stats", async () => {
      const room = fresh("agar", "it");
      const players = [open(room), open(room), open(room), open(room)];
      const welcomes = await Promise.all(players.map((p, i) => p.join(`p${i}`)));
      for (const w of welcomes) {
        expect(w).not.toBeNull();
        expect(w!.roomKind).toBe("agar");
        expect(w!.tickMs).toBe(50);
        expect(w!.syncIntervalMs).toBe(50);
        expect(w!.schemaHash).toBe(agarSchema.hash);
      }
      expect(new Set(welcomes.map((w) => w!.playerId)).size).toBe(4);

      // 20 Hz steering for 3 s from every player.
      const w = new BinaryWriter();
      const started = performance.now();
      let k = 0;
      while (performance.now() - started < 3000) {
        const angle = k++ * 0.1;
        for (const p of players) p.sendInput(agarInputs.encode({ dx: Math.cos(angle), dy: Math.sin(angle), boost: false }, w));
        await sleep(50);
      }
      await sleep(300); // let the last tick drain and flush

      for (const p of players) {
        expect(p.closed).toBeNull();
        expect(p.errors).toEqual([]);
        // Acks carry the highest processed seq; every input sent must be covered.
        expect(p.highestAck).toBe(p.lastSeq);
        const gaps = frameGaps(p.frames.filter((f) => f.at - started > 200));
        expect(gaps.length).toBeGreaterThan(40);
        expect(Math.abs(median(gaps) - 50)).toBeLessThanOrEqual(10);
        // The deltas decode into a view that contains this player's own cell.
        const view = viewOf(p, agarSchema);
        const names = [...view.values()].filter((e) => e.type === "player").map((e) => e.record.name);
        expect(names.length).toBeGreaterThan(0);
      }

      const stats = await players[0]!.stats();
      expect(stats.kind).toBe("agar");
      expect(stats.ccu).toBe(4);
      const sent = players.reduce((a, p) => a + p.lastSeq, 0);
      expect(stats.inputs.received).toBe(sent);
      expect(stats.inputs.processed).toBe(sent);
      expect(stats.flush.count).toBeGreaterThan(50);
      expect(stats.tick.count).toBeGreaterThanOrEqual(stats.flush.count);
      expect(stats.frames).toBeGreaterThan(200);
    });

    it("agar: refuses the 21st join to a 20-seat room with room_full and close 4002, seated players untouched", async () => {
      const room = fresh("agar", "cap");
      const seated: RawClient[] = [];
      for (let i = 0; i < 20; i++) {
        const c = open(room);
        seated.push(c);
        expect(await c.join(`s${i}`)).not.toBeNull();
        // Steering is a state: one input keeps the cell moving, so its frames keep coming.
        c.sendInput(agarInputs.encode({ dx: i % 2 ? 1 : -1, dy: 0.5, boost: false }, new BinaryWriter()));
      }
      const extra = open(room);
      expect(await extra.join("extra")).toBeNull();
      const closed = await extra.done;
      expect(closed.code).toBe(CloseCode.room_full);
      expect(extra.errors.map((e) => e.code)).toEqual([ErrorCode.room_full]);

      const framesBefore = seated.map((c) => c.frames.length);
      await sleep(500);
      seated.forEach((c, i) => {
        expect(c.closed).toBeNull();
        expect(c.frames.length).toBeGreaterThan(framesBefore[i]!);
      });
      const stats = await seated[0]!.stats();
      expect(stats.ccu).toBe(20);
      expect(stats.refused.room_full).toBe(1);
      expect(stats.closes["4002"]).toBe(1);
    });

    it("refused joins reach the SDK as close codes within a second, and are not retried", async () => {
      const roomId = fresh("agar", "refused").split("/").pop()!;
      const attempts: string[] = [];
      const cases: [RoomConnection, string][] = [
        [sdk("chess", roomId), "not_found"],
        [sdk("agar", "bad.id"), "bad_request"],
        [sdk("agar", roomId, "?tickMs=1"), "bad_request"],
      ];
      // Heard from the start: all three joins run at once, so a later one may end while an
      // earlier one is still awaited.
      for (const [conn, code] of cases) conn.on("close", (c) => attempts.push(`${code}:${c.code}`));
      for (const [conn, code] of cases) {
        const { ms, error } = await joinFailure(conn);
        expect(error, code).toBeInstanceOf(JoinError);
        expect(error).toMatchObject({ code, closeCode: CloseCode[code as keyof typeof CloseCode] });
        expect((error as JoinError).reason.length, code).toBeGreaterThan(0);
        expect(ms, code).toBeLessThan(1000);
        expect(conn.status).toBe("closed");
      }
      await sleep(300);
      expect(attempts.sort()).toEqual(["bad_request:4014", "bad_request:4014", "not_found:4013"]);
    });

    it("a full room and a throttled join reach the SDK with their codes: room_full ends the join, join_throttled is retried after its wait", async () => {
      const room = fresh("ttt-json", "full");
      const roomId = room.split("/").pop()!;
      const x = openJson(room);
      const o = openJson(room);
      expect(await x.join("x")).not.toBeNull();
      expect(await o.join("o")).not.toBeNull();
      const third = connect(wsUrl(), { kind: "ttt-json", room: roomId, json: jsonDialect, reconnect: { baseMs: 50, maxMs: 100 } });
      sockets.push(third);
      const { ms, error } = await joinFailure(third);
      expect(error).toMatchObject({ name: "JoinError", code: "room_full", closeCode: CloseCode.room_full });
      expect(ms).toBeLessThan(1000);

      // One join per second, burst one: the second SDK join is throttled, waits as asked, then joins.
      const slow = fresh("agar", "throttled").split("/").pop()!;
      const first = sdk("agar", slow, "?joinRatePerSec=1&joinBurst=1");
      await first.whenJoined();
      const second = sdk("agar", slow, "?joinRatePerSec=1&joinBurst=1");
      const retries: { code: number; delayMs: number }[] = [];
      second.on("reconnecting", (r) => retries.push(r));
      await second.whenJoined();
      expect(retries[0]).toMatchObject({ code: CloseCode.join_throttled });
      expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(100);
    });

    it("reconnect: a dropped player comes back with its token inside the window to the same seat and learns which inputs were applied", async () => {
      const room = fresh("agar", "re");
      const first = open(room);
      const welcome = (await first.join("re"))!;
      expect(welcome.reconnected).toBe(false);
      const w = new BinaryWriter();
      for (let i = 0; i < 5; i++) {
        first.sendInput(agarInputs.encode({ dx: 1, dy: 0, boost: false }, w));
        await sleep(20);
      }
      expect(await until(() => first.highestAck === first.lastSeq)).toBe(true);
      first.ws.terminate(); // a dropped connection, not a leave
      await first.done;

      const again = open(room);
      const back = (await again.join("re", welcome.token))!;
      expect(back).toMatchObject({ reconnected: true, playerId: welcome.playerId, token: welcome.token, lastSeq: 5 });
      const stats = await again.stats();
      expect(stats).toMatchObject({ ccu: 1, seats: 1, heldSeats: 0, joins: 1, reconnects: 1 });
    });

    it("movement: every player sees every player; inputs acked; tk:stats counts them", async () => {
      const room = fresh("movement", "it");
      const players = [open(room), open(room), open(room)];
      const welcomes = await Promise.all(players.map((p, i) => p.join(`m${i}`)));
      for (const wm of welcomes) expect(wm).toMatchObject({ roomKind: "movement", cap: 64, tickMs: 50, syncIntervalMs: 50, schemaHash: movementSchema.hash });
      await steerMovement(players, 2000);
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

    it("a flush in slices of one client (flushSliceClients=1): every player still gets its frames at the cadence, acked, seeing everyone", async () => {
      const room = `${fresh("movement", "slices")}?flushSliceClients=1`;
      const players = [open(room), open(room), open(room)];
      await Promise.all(players.map((p, i) => p.join(`s${i}`)));
      const started = await steerMovement(players, 2000);
      for (const p of players) {
        expect(p.closed).toBeNull();
        expect(p.errors).toEqual([]);
        expect(p.highestAck).toBe(p.lastSeq);
        expect(viewOf(p, movementSchema).size).toBe(3);
        const gaps = frameGaps(p.frames.filter((f) => f.at - started > 200));
        expect(Math.abs(median(gaps) - 50)).toBeLessThanOrEqual(10);
      }
      const stats = await players[0]!.stats();
      // One slice per connected client: each later slice was a task of the host's own.
      expect(stats.flushSlices).toBeGreaterThan(2 * stats.flushes);
      expect(stats.flushSlice.count).toBeGreaterThanOrEqual(stats.flushes - 1);
      expect(stats.flushSlice.max).toBeLessThanOrEqual(stats.flush.max);
    });

    it("fps: shots hit, kill and score; a speed hack is refused and counted", async () => {
      // A 100-unit arena (DEV_MODE override) keeps both players inside each other's AOI.
      const room = `${fresh("fps", "it")}?world=100`;
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
        shooter.sendInput(fpsInputs.encode({ kind: "shot", time: seen, aim: Math.atan2(b.y - a.y, b.x - a.x) }, w));
        await sleep(200);
      }
      expect(await until(() => eventsOf(target).some((e) => e.kind === "kill"))).toBe(true);
      expect(eventsOf(shooter).filter((e) => e.kind === "tracer" && e.hit === them)).toHaveLength(4);
      expect(eventsOf(shooter).find((e) => e.kind === "kill")).toEqual({ kind: "kill", killer: me, victim: them });
      await sleep(100);
      const board = [...viewOf(target, fpsSchema).values()].find((e) => e.type === "scoreboard")!.record as { kills: Map<number, number>; deaths: Map<number, number> };
      expect(board.kills.get(me)).toBe(1);
      expect(board.deaths.get(them)).toBe(1);

      // 40 steps of 100 ms at once: 4 s of movement claimed in an instant (the budget refills with
      // real time, so on a machine slow enough to spread the burst over a second or two, most of
      // it is still refused).
      for (let i = 0; i < 40; i++) shooter.sendInput(fpsInputs.encode({ kind: "move", dx: 1, dy: 0, dtMs: 100, aim: 0 }, w));
      expect(await until(() => shooter.highestAck === shooter.lastSeq)).toBe(true);
      // Refusals are reported together: one error frame per tick's worth, carrying the count.
      const refusals = shooter.errors.filter((e) => e.code === ErrorCode.speed_violation);
      expect(refusals.length).toBeGreaterThanOrEqual(1);
      expect(refusals.length).toBeLessThan(40);

      const stats = await shooter.stats();
      expect(stats).toMatchObject({ kind: "fps", ccu: 2, game: { shots: 4, hits: 4, kills: 1 } });
      expect(stats.inputs.rejectedByCode.speed_violation).toBeGreaterThan(20);
    });

    it("declared inputs: out of range, NaN, truncated or over-long payloads are refused bad_input naming the field, counted, the seat kept", async () => {
      const agar = open(fresh("agar", "declared"));
      expect(await agar.join("d")).not.toBeNull();
      const fps = open(fresh("fps", "declared"));
      expect(await fps.join("d")).not.toBeNull();
      const w = new BinaryWriter();
      // agar: dx past its 255 levels; boost 2; a byte short; a byte too many. Then a good one.
      for (const bad of [[255, 127, 0], [127, 127, 2], [127, 127], [127, 127, 0, 0]]) {
        agar.sendInput(Uint8Array.from(bad));
        expect(await until(() => agar.highestAck === agar.lastSeq)).toBe(true);
      }
      agar.sendInput(agarInputs.encode({ dx: 1, dy: 0, boost: false }, w));
      // fps: a shot whose time is NaN, then +Infinity, then past its range (bytes by hand: the SDK's writer refuses them).
      for (const time of [NaN, Infinity, 2 ** 40]) fps.sendInput(w.reset().u8(1).f64(time).u16(0).toBytes());
      expect(await until(() => agar.highestAck === agar.lastSeq && fps.highestAck === fps.lastSeq && fps.errors.length >= 1)).toBe(true);
      const reasons = agar.errors.map((e) => e.reason).join(" | ");
      for (const part of ["input dx: level 255", "input boost: level 2", "input boost: truncated", "input: 4 bytes where the declaration reads 3"]) expect(reasons).toContain(part);
      expect(agar.errors.every((e) => e.code === ErrorCode.bad_input)).toBe(true);
      expect(fps.errors[0]).toMatchObject({ code: ErrorCode.bad_input });
      expect(fps.errors.map((e) => e.reason).join(" | ")).toContain("input shot.time: NaN is not a finite number");
      expect(agar.closed).toBeNull();
      expect(fps.closed).toBeNull();
      const agarStats = await agar.stats();
      expect(agarStats.inputs).toMatchObject({ received: 5, processed: 1, rejected: 4, rejectedByCode: { bad_input: 4 } });
      const fpsStats = await fps.stats();
      expect(fpsStats.inputs).toMatchObject({ received: 3, rejected: 3, rejectedByCode: { bad_input: 3 } });
    });

    it("ttt-json: seats two, enforces turns, ends the round, rematches, answers a room message; tk:stats counts", async () => {
      const room = fresh("ttt-json", "it");
      const x = openJson(room);
      const o = openJson(room);
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

      // A room message to a game without a handler: refused to its request id, the seat kept.
      x.ws.send(JSON.stringify({ t: "msg", type: "chat", id: 9, data: { text: "gg" } }));
      expect(await until(() => x.messages.some((m) => m.t === "reply"))).toBe(true);
      expect(x.messages.find((m) => m.t === "reply")).toMatchObject({ id: 9, code: ErrorCode.unknown_message, name: "unknown_message" });

      const stats = await x.stats();
      expect(stats).toMatchObject({ kind: "ttt-json", ccu: 2, loopRunning: false, ticks: 0, game: { moves: 5, rounds: 2 } });
      expect(stats.inputs.rejectedByCode).toEqual({ not_your_turn: 1, illegal_move: 1 });
      expect(stats.gameMessages).toEqual({ received: 1, handled: 0, refused: 1, refusedByCode: { unknown_message: 1 } });
    });
  });
  describePlayers(hostName, wsUrl);
  describeSpectators(hostName, wsUrl);
}
