/**
 * Who is joining, on the Node host: a JWT-signed player's claims (those `auth.claims` names)
 * reach the game with its identity and join options, directly and through the matchmaker; the
 * seat keeps its record across a restart of the host (`checkpoints`: the room comes back from its
 * checkpoint and the game sees the same players); and tic-tac-toe keeps each identity's record
 * in this host's memory (`env.TTT_RECORDS`), across rooms and the restart.
 */
import { gameDefinitions, memoryTttRecords } from "@tikron/games";
import { tttTypes } from "@tikron/games/schemas";
import { connect, matchmaker, withMessages } from "@tikron/client";
import type { RoomCheckpoint } from "@tikron/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRooms, type RoomServer } from "../src";
import { AUDIENCE, ISSUER, JwksServer, makeKey, sign, type TestKey } from "../../core/test/auth/jwksServer";

const jwks = new JwksServer();
let key: TestKey;
const servers: RoomServer[] = [];
const open: { close(o?: { leave?: boolean }): void }[] = [];

beforeAll(async () => {
  key = await makeKey("k1", "ES256");
  await jwks.start();
  jwks.publish(key);
});
afterAll(async () => {
  for (const c of open) c.close();
  for (const s of servers) await s.close(200);
  await jwks.stop();
});

const token = (sub: string, claims: Record<string, unknown> = {}) => sign(key, Date.now(), { sub, ...claims });

async function host(options: { port?: number; checkpoints?: Map<string, unknown>; records?: ReturnType<typeof memoryTttRecords> } = {}): Promise<RoomServer> {
  const s = await serveRooms({
    games: gameDefinitions,
    devMode: false,
    port: options.port ?? 0,
    ticketSecret: "node-players-secret-0123456789",
    auth: { jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE, claims: ["name", "roles"] },
    env: { TTT_RECORDS: options.records ?? memoryTttRecords() },
    ...(options.checkpoints ? { checkpoints: options.checkpoints as Map<string, RoomCheckpoint> } : {}),
  });
  servers.push(s);
  return s;
}

/** A tic-tac-toe player signed in as `sub` (its JWT's `name` claim: `display`). */
function player(s: RoomServer, roomId: string, sub: string, display: string, joinOptions?: { mark: "X" | "O" }) {
  const conn = withMessages(
    connect(s.url, { game: tttTypes, room: roomId, name: `hello-${sub}`, authToken: () => token(sub, { name: display, roles: ["player"], email: `${sub}@example.com` }), ...(joinOptions ? { joinOptions } : {}), reconnect: { baseMs: 50, maxMs: 200, maxAttempts: 40 } }),
  );
  open.push(conn);
  return conn;
}

async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end && !cond()) await new Promise((r) => setTimeout(r, 20));
  return cond();
}

describe("who is joining, on the Node host", () => {
  it("a JWT-signed player's claims.name reaches the game (its seat's name), with its identity and join options; the other claims stay out", async () => {
    const s = await host();
    const ann = player(s, "signed", "ann", "Ann B.", { mark: "O" });
    const bob = player(s, "signed", "bob", "Bob C.");
    await Promise.all([ann.whenJoined(), bob.whenJoined()]);
    expect(await ann.request("whoami", undefined)).toEqual({ playerId: ann.playerId, name: "hello-ann", identity: "jwt:ann", claims: { name: "Ann B.", roles: ["player"] }, options: { mark: "O" } });
    expect(await until(() => bob.state?.seats.O?.name === "Ann B." && bob.state?.seats.X?.name === "Bob C.")).toBe(true);
  });

  it("through the matchmaker too: the reservation carries the claims to the seat, and bad join options are refused before anything is reserved", async () => {
    const s = await host();
    const mm = matchmaker(s.httpUrl, { authToken: () => token("cy", { name: "Cy D." }) });
    const room = withMessages(await mm.joinOrCreate(tttTypes, { joinOptions: { mark: "X" } }));
    open.push(room);
    expect(await room.request("whoami", undefined)).toMatchObject({ identity: "jwt:cy", claims: { name: "Cy D." }, options: { mark: "X" } });
    await expect(mm.joinOrCreate(tttTypes, { joinOptions: { mark: "Q" as "X" } })).rejects.toMatchObject({ name: "JoinError", code: "bad_request", reason: expect.stringContaining('"mark"') });
    const stats = (await room.requestStats()) as { reservations: { made: number; pending: number } };
    expect(stats.reservations).toMatchObject({ made: 1, pending: 0 });
  });

  it("a restart of the host with its checkpoints brings the seats back: the game sees the same players (identity, claims, options), the board goes on, the records too", async () => {
    const checkpoints = new Map<string, unknown>();
    const records = memoryTttRecords();
    const first = await host({ checkpoints, records });
    const ann = player(first, "kept", "ann", "Ann B.", { mark: "O" });
    const bob = player(first, "kept", "bob", "Bob C.");
    await Promise.all([ann.whenJoined(), bob.whenJoined()]);
    expect(await until(() => ann.state?.status === "playing")).toBe(true);
    // X (bob) opens: a move the restarted room must still show.
    bob.sendInput({ cell: 4 });
    expect(await until(() => ann.state?.board[4] === "X")).toBe(true);
    const before = await ann.request("whoami", undefined);

    // The host goes and another takes its port with the same checkpoints: the clients come back.
    await first.close(500);
    expect(checkpoints.has("ttt-json:kept")).toBe(true);
    const second = await host({ port: first.port, checkpoints, records });
    const back = await ann.whenJoined();
    expect(back.reconnected).toBe(true);
    await bob.whenJoined();
    expect(await ann.request("whoami", undefined)).toEqual(before);
    expect(await until(() => ann.state?.board[4] === "X" && ann.state.seats.O?.name === "Ann B.")).toBe(true);
    expect(second.room("ttt-json", "kept")!.snapshot()).toMatchObject({ restoredSeats: 2, reconnects: 2 });

    // A round won after the restart lands in each identity's record (this host's memory).
    for (const [who, cell] of [[ann, 0], [bob, 3], [ann, 1], [bob, 5]] as const) {
      who.sendInput({ cell });
      await new Promise((r) => setTimeout(r, 60));
    }
    expect(await until(() => ann.state?.status === "won" && ann.state.record?.losses === 1)).toBe(true);
    expect(await records.get("jwt:bob")).toEqual({ wins: 1, losses: 0, draws: 0 });
  });
});
