import { describe, expect, it } from "vitest";
import { BinaryWriter, CloseCode, PROTOCOL_VERSION, encodeHello, type MetricPoint } from "@tikron/protocol";
import { FakeClock, Room } from "../../src";
import { runRoomAdmin, statsSummary } from "../../src/admin";
import { CounterGame, FakeConnection } from "../fakes";

function setup() {
  const clock = new FakeClock();
  const room = new Room({ kind: "counter", roomId: "r1", game: new CounterGame(), clock });
  const join = (identity?: string) => {
    const conn = new FakeConnection();
    const id = room.open(conn, identity);
    room.message(id, encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: identity ?? "anon" }).toBytes());
    return { conn, id };
  };
  return { clock, room, join };
}

const point = { at: 1, intervalMs: 1, kind: "counter", roomId: "r1", clients: 1, seats: 1, frames: 1, bytesOut: 1, bytesIn: 1, messagesIn: 1, errors: 0, closes: 0, flushP99Ms: 0 } satisfies MetricPoint;

describe("the room side of the admin API", () => {
  it("answers the detail: seats, errors, bans, listing, the full stats and the host's metric points", () => {
    const { room, join } = setup();
    join("ann");
    const out = runRoomAdmin(room, { op: "room" }, [point]);
    expect(out).toMatchObject({ ok: true, body: { kind: "counter", roomId: "r1", seats: [{ playerId: 1, identity: "ann", connected: true }], errors: [], bans: [], listing: { locked: false, private: false }, stats: { ccu: 1 }, metrics: [point] } });
    expect(runRoomAdmin(room, { op: "metrics" }, [point])).toEqual({ ok: true, body: [point] });
  });

  it("runs each action and says what it did, or not_found / conflict", () => {
    const { room, join } = setup();
    const ann = join("ann");
    join();
    expect(runRoomAdmin(room, { op: "notice", text: "hi" }, [])).toEqual({ ok: true, body: { op: "notice", affected: 2 } });
    expect(runRoomAdmin(room, { op: "kick", playerId: 9, reason: "" }, [])).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(runRoomAdmin(room, { op: "ban", playerId: 2, seconds: 60, reason: "" }, [])).toMatchObject({ ok: false, error: { code: "conflict" } });
    expect(runRoomAdmin(room, { op: "ban", playerId: 9, seconds: 60, reason: "" }, [])).toMatchObject({ ok: false, error: { code: "not_found" } });
    const banned = runRoomAdmin(room, { op: "ban", playerId: 1, seconds: 60, reason: "x" }, []);
    expect(banned).toMatchObject({ ok: true, body: { op: "ban", affected: 1, identity: "ann", until: expect.any(Number) } });
    expect(ann.conn.closedWith?.code).toBe(CloseCode.banned);
    expect(runRoomAdmin(room, { op: "unban", identity: "ann" }, [])).toEqual({ ok: true, body: { op: "unban", affected: 0, identity: "ann" } });
    expect(runRoomAdmin(room, { op: "unban", identity: "ann" }, [])).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(runRoomAdmin(room, { op: "lock", locked: true }, [])).toEqual({ ok: true, body: { op: "lock", affected: 0 } });
    expect(room.status().locked).toBe(true);
    expect(runRoomAdmin(room, { op: "kick", playerId: 2, reason: "" }, [])).toEqual({ ok: true, body: { op: "kick", affected: 1 } });
    expect(runRoomAdmin(room, { op: "close", reason: "" }, [])).toEqual({ ok: true, body: { op: "close", affected: 0 } });
  });

  it("summarizes tk:stats for the room list", () => {
    const { room, join } = setup();
    join("ann");
    const s = room.snapshot();
    expect(statsSummary(s)).toEqual({ ccu: 1, seats: 1, uptimeMs: s.uptimeMs, frames: s.frames, bytesOut: s.bytesOut, errors: 0, closes: 0, flushP99Ms: s.flush.p99 });
  });
});
