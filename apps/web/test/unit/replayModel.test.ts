/**
 * The replay viewer's model on a recorded agar match: seeked to the middle, each player's view
 * holds the entities that player's own client held at that moment of the live match (same ids,
 * same positions), the whole world holds every entity, seeking back gives the same again, and a
 * player's timeline has the frames it got.
 */
import { describe, expect, it } from "vitest";
import type { ClientView } from "@tikron/protocol";
import { MemoryRecording, TestRoom } from "@tikron/core/testing";
import { gameDefinitions } from "@tikron/games";
import { agarTypes } from "@tikron/games/schemas";
import { ReplayModel, type ViewedEntity } from "../../src/replayModel";

function seen(view: ClientView): ViewedEntity[] {
  const out: ViewedEntity[] = [];
  for (const e of view.values()) {
    const rec = e.record as Record<string, unknown>;
    out.push({ id: e.id, type: e.type, x: rec.x as number, y: rec.y as number, r: typeof rec.r === "number" ? rec.r : null });
  }
  return out.sort((a, b) => a.id - b.id);
}

describe("ReplayModel", () => {
  it("shows each player what its client saw at the match's middle, and the whole world", async () => {
    const recording = new MemoryRecording();
    // A small world with a short AOI, so the players' views differ from the world and each other.
    const t = new TestRoom(gameDefinitions.agar!, agarTypes, { recording, seed: 7, params: { world: 1200, aoi: 250 } });
    const clients = [t.join("a"), t.join("b"), t.join("c")];
    let middle: { time: number; views: ViewedEntity[][] } | null = null;
    for (let step = 0; step < 60; step++) {
      for (const [i, c] of clients.entries()) c.input({ dx: Math.cos(step / 9 + i * 2), dy: Math.sin(step / 7 - i), boost: step % 11 === i });
      t.advance(50);
      if (step === 30) middle = { time: t.time, views: clients.map((c) => seen(c.state as ClientView)) };
    }
    t.room.dispose();

    const model = new ReplayModel(gameDefinitions.agar!, recording.log(), agarTypes.schema);
    expect(model.players.map((p) => p.name)).toEqual(["a", "b", "c"]);
    expect(model.duration).toBeGreaterThanOrEqual(3000);
    await model.seek(middle!.time);
    for (const [i, c] of clients.entries()) {
      expect(model.viewOf(c.playerId)).toEqual(middle!.views[i]);
      expect(model.viewOf(c.playerId).length).toBeGreaterThan(0);
    }
    const world = model.world();
    const ids = new Set(world.map((e) => e.id));
    for (const view of middle!.views) for (const e of view) expect(ids.has(e.id)).toBe(true);
    expect(world.length).toBeGreaterThan(Math.max(...middle!.views.map((v) => v.length)));

    // To the end, then back to the middle: the same views again.
    await model.seek(model.duration);
    expect(model.report().exact).toBe(true);
    const frames = model.timeline(clients[0]!.playerId);
    expect(frames.length).toBe(clients[0]!.frames.length);
    expect(frames.at(-1)!.ackSeq).toBe(60);
    await model.seek(middle!.time);
    for (const [i, c] of clients.entries()) expect(model.viewOf(c.playerId)).toEqual(middle!.views[i]);
  });
});
