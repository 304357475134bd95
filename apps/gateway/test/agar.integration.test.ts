import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinaryWriter, ClientView, CloseCode, ErrorCode } from "@tikron/protocol";
import { agarSchema, encodeAgarInput } from "@tikron/games/schemas";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { RawClient, frameGaps, median, sleep } from "./support/rawClient";

let server: WranglerDevServer;
const clients: RawClient[] = [];
const open = (path: string) => {
  const c = new RawClient(server.wsUrl + path);
  clients.push(c);
  return c;
};

beforeAll(async () => {
  server = await startWranglerDev({ config: "wrangler.staging.jsonc" });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await server?.stop();
});

describe("agar room under wrangler dev", () => {
  it("welcomes, acks every input, streams state at the configured cadence, and reports tk:stats", async () => {
    const room = `/rooms/agar/it-${Date.now()}`;
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
      for (const p of players) p.sendInput(encodeAgarInput(w, { dx: Math.cos(angle), dy: Math.sin(angle), boost: false }));
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
      const view = new ClientView(agarSchema);
      for (const f of p.frames) if (f.frame.delta) expect(view.apply(f.frame.delta)).toBeNull();
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

  it("refuses the 21st join to a 20-seat room with room_full and close 4002, seated players untouched", async () => {
    const room = `/rooms/agar/cap-${Date.now()}`;
    const seated: RawClient[] = [];
    for (let i = 0; i < 20; i++) {
      const c = open(room);
      seated.push(c);
      expect(await c.join(`s${i}`)).not.toBeNull();
      // Steering is a state: one input keeps the cell moving, so its frames keep coming.
      c.sendInput(encodeAgarInput(new BinaryWriter(), { dx: i % 2 ? 1 : -1, dy: 0.5, boost: false }));
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
});
