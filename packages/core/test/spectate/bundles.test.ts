/**
 * Frame bundles (core/src/spectate, protocol bundle.ts): a delayed spectator gets the frames of a
 * few flushes in one message, every frame once and in order, the same frames an undelayed one
 * gets; an undelayed spectator gets each frame alone. And a spectator that never says hello is
 * closed, counted, and frees its place.
 */
import { CloseCode, MAX_FRAMES_PER_BUNDLE, type SpectateTarget } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { framesPerBundle, MAX_BUNDLE_MS } from "../../src/spectate/spectatorLane";
import { TestRoom } from "../../src/testing";
import { type FieldGame, fieldDefinition, fieldSchema, fieldTypes } from "../relay/fieldGame";
import { Watcher } from "./watcher";

const FLUSH = 50;

function fieldRoom(overrides = {}) {
  return new TestRoom<typeof fieldTypes, FieldGame>(fieldDefinition(7), fieldTypes, { overrides });
}

function watcher(room: TestRoom<typeof fieldTypes, FieldGame>, target: SpectateTarget | null, delaySec = 0): Watcher {
  return new Watcher(room.room, fieldSchema).open({ target, delaySec });
}

/** The ticks of the frames a spectator decoded, in the order it decoded them. */
const ticks = (w: Watcher) => w.messages.flatMap((m) => (m.kind === "frame" ? [m.tick] : []));

describe("frame bundles", () => {
  it("gathers a tenth of the delay, whole flushes, at most MAX_BUNDLE_MS; none for an undelayed lane", () => {
    expect(framesPerBundle(0, 50)).toBe(1);
    expect(framesPerBundle(1000, 50)).toBe(2);
    expect(framesPerBundle(2000, 50)).toBe(4);
    expect(framesPerBundle(60_000, 50)).toBe(MAX_BUNDLE_MS / 50);
    expect(framesPerBundle(1000, 100)).toBe(1);
    expect(framesPerBundle(1000, 0)).toBe(1);
    expect(framesPerBundle(60_000, 1)).toBe(MAX_FRAMES_PER_BUNDLE);
  });

  it("a delayed spectator decodes every frame an undelayed one does, once and in order, in half the messages", () => {
    const room = fieldRoom();
    const ann = room.join("ann");
    const live = watcher(room, { player: ann.playerId });
    const late = watcher(room, { player: ann.playerId }, 1);
    for (let i = 0; i < 100; i++) {
      ann.input({ dir: ((i % 4) + 1) as 1 });
      room.advance(FLUSH);
    }
    const lateTicks = ticks(late);
    // 100 flushes, the first 20 still inside the delay: 80 frames reached the late spectator.
    expect(lateTicks.length).toBeGreaterThanOrEqual(78);
    expect(lateTicks).toEqual(ticks(live).slice(0, lateTicks.length));
    // Every message after its welcome a bundle of 2 frames (the keyframe's included).
    expect(late.bundles).toBe(late.received - 1);
    expect(lateTicks.length).toBe(2 * late.bundles);
    // The undelayed one got each frame alone.
    expect(live.bundles).toBe(0);
    expect(ticks(live).length).toBe(live.received - 1);
    // What the late one shows is what the live one showed a second earlier (checked flush by flush in spectators.test.ts).
    const s = room.stats().spectators!;
    expect(s.frames + s.keyframes).toBe(lateTicks.length + ticks(live).length);
    expect(s.sends).toBe(late.bundles + live.received - 1);
  });

  it("members who join, switch and fall behind mid-bundle lose no frame and decode what a fresh keyframe shows", () => {
    const room = fieldRoom();
    const ann = room.join("ann");
    const bob = room.join("bob");
    const a = watcher(room, { player: ann.playerId }, 2);
    const move = (n: number) => {
      for (let i = 0; i < n; i++) {
        ann.input({ dir: ((i % 4) + 1) as 1 });
        bob.input({ dir: (((i + 2) % 4) + 1) as 1 });
        room.advance(FLUSH);
      }
    };
    move(43);
    // Joins and switches in the middle of a 4-frame bundle: they start at the next bundle.
    const b = watcher(room, { player: ann.playerId }, 2);
    const c = watcher(room, { player: bob.playerId }, 2);
    move(43);
    expect(ticks(c).length).toBeGreaterThan(0);
    c.follow({ player: ann.playerId });
    a.buffered = 1 << 30;
    move(5);
    a.buffered = 0;
    move(50);
    expect(a.welcomes).toBe(2);
    expect(c.welcomes).toBe(2);
    for (const w of [a, b, c]) {
      const t = ticks(w);
      // Strictly rising: no frame twice; one bundle's ticks one flush apart.
      for (let i = 1; i < t.length; i++) expect(t[i]!).toBeGreaterThan(t[i - 1]!);
    }
    expect(ticks(b).slice(-8)).toEqual(ticks(a).slice(-8));
    expect(b.entities()).toEqual(a.entities());
    expect(c.entities()).toEqual(a.entities());
    expect(room.stats().spectators!.skipped).toBeGreaterThan(0);
  });
});

describe("a spectator's hello", () => {
  it("not said within helloTimeoutMs: closed with hello_timeout, counted, its place freed", () => {
    const room = fieldRoom({ maxSpectators: 1, helloTimeoutMs: 500 });
    room.join("ann");
    const silent = new Watcher(room.room, fieldSchema);
    silent.id = room.room.spectate(silent, { target: null, delaySec: 0 });
    expect(silent.id).toBeGreaterThan(0);
    room.advance(400);
    expect(silent.closed).toBeNull();
    expect(watcher(room, null).closed?.code).toBe(CloseCode.spectators_full);
    room.advance(200);
    expect(silent.closed?.code).toBe(CloseCode.hello_timeout);
    expect(room.stats().spectators).toMatchObject({ helloTimeouts: 1, connected: 0 });
    const next = watcher(room, null);
    expect(next.closed).toBeNull();
    room.advance(1000);
    expect(next.closed).toBeNull();
    expect(next.welcomes).toBe(1);
    expect(room.stats().spectators!.helloTimeouts).toBe(1);
  });
});
