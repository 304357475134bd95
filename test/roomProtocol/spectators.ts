/**
 * Spectators on every host (run by test/roomProtocol/suite.ts), through the SDK's `watch`: a
 * spectator of a live agar room takes no seat, decodes the followed player's view, has its
 * inputs refused (`spectating`, counted in `tk:stats`), and switches target while watching.
 * The cap, the delay and the shared frames are the core's unit tests (core/test/spectate).
 */
import { afterAll, describe, expect, it } from "vitest";
import { ErrorCode, connect, withMessages } from "@tikron/client";
import { watch } from "@tikron/client/watch";
import { BinaryWriter } from "@tikron/protocol";
import { agarInputs, agarTypes } from "@tikron/games/schemas";
import { until } from "./jsonClient";

/** The spectators' tests for one host; `wsUrl` is read when a test runs. */
export function describeSpectators(hostName: string, wsUrl: () => string): void {
  const open: { close(): void }[] = [];
  afterAll(() => {
    for (const c of open) c.close();
  });

  describe(`spectators, on ${hostName}`, () => {
    it("watch a live agar room without a seat: the followed player's view, inputs refused and counted, a target switch", async () => {
      const room = `watch-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
      const player = withMessages(connect(wsUrl(), { game: agarTypes, room, name: "ann", reconnect: { baseMs: 50, maxMs: 100, maxAttempts: 3 } }));
      open.push(player);
      await player.whenJoined();
      const view = watch(wsUrl(), { game: agarTypes, room, follow: player.playerId, reconnect: { baseMs: 50, maxMs: 100, maxAttempts: 3 } });
      open.push(view);
      // Counted from the start: the keyframe may come in the same read as the welcome, before
      // the code after `whenJoined` runs.
      let frames = 0;
      view.on("state", () => frames++);
      const welcome = await view.whenJoined();
      expect(welcome).toMatchObject({ playerId: 0, roomKind: "agar" });
      const errors: number[] = [];
      let welcomes = 1;
      view.on("error", (e) => errors.push(e.code));
      view.on("welcome", () => welcomes++);
      // The player is in the view of a spectator who follows the player.
      expect(await until(() => [...view.state.values()].some((e) => e.type === "player" && e.record.pid === player.playerId), 5000)).toBe(true);
      expect(frames).toBeGreaterThan(0);

      // An input from a spectator: refused, counted; the spectator stays.
      expect(view._send((d) => d.input(1, agarInputs.encode({ dx: 1, dy: 0, boost: false }, new BinaryWriter())))).toBe(true);
      expect(await until(() => errors.includes(ErrorCode.spectating), 3000)).toBe(true);
      const stats = (await player.requestStats()) as { seats: number; errors: Record<string, number>; spectators?: { connected: number; refused: number } };
      expect(stats.seats).toBe(1);
      expect(stats.errors.spectating).toBe(1);
      expect(stats.spectators).toMatchObject({ connected: 1, refused: 1 });

      // Another target: a second welcome and the new view.
      expect(view.follow({ x: 10, y: 10 })).toBe(true);
      expect(await until(() => welcomes === 2, 3000)).toBe(true);
      const before = frames;
      expect(await until(() => frames > before + 2, 3000)).toBe(true);
      expect(view.status).toBe("joined");
    });
  });
}
