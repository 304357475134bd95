import type { GameDefinition } from "@tikron/core";
import { createAgar } from "./agar/agarGame";
import { agarBots, fpsBots, movementBots, tttBots } from "./bots";
import { FPS_PRESETS } from "./fps/fpsPresets";
import { createFps } from "./fps/fpsGame";
import { createMovement } from "./movement/movementGame";
import { TicTacToeGame } from "./ttt/tttGame";
import { tttJoinOptions } from "./ttt/tttJoin";

/** fps bots move in steps this long, one per input (well inside the move budget's step cap). */
const FPS_BOT_STEP_MS = 100;

/** Every room kind the gateway hosts, by kind name. */
export const gameDefinitions: Readonly<Record<string, GameDefinition>> = {
  agar: {
    kind: "agar",
    defaults: { tickMs: 50, syncIntervalMs: 50, cap: 20 },
    create: (options, params, seed) => createAgar(options, params, seed),
    record: true,
    bots: agarBots,
  },
  movement: {
    kind: "movement",
    // 20 Hz both ways: everyone sees everyone, so a flush costs cap² entity updates.
    defaults: { tickMs: 50, syncIntervalMs: 50, cap: 64 },
    create: (options, params, seed) => createMovement(options, params, seed),
    record: true,
    bots: movementBots,
  },
  fps: {
    kind: "fps",
    // Inputs stay queued to the tick (see FPS_PRESETS): immediate per-input acks multiply writes.
    defaults: { ...FPS_PRESETS.hz30, cap: 100, queueInputs: true },
    create: (options, params, seed) => createFps(options, params, seed),
    record: true,
    bots: fpsBots(FPS_BOT_STEP_MS),
  },
  "ttt-json": {
    kind: "ttt-json",
    defaults: { cap: 2 },
    create: () => new TicTacToeGame(),
    record: true,
    bots: tttBots,
    // The mark a player asks for (the declaration's constant: clients type theirs with it).
    joinOptions: tttJoinOptions,
    // Rated games: two players within 100 rating points, the window widening 50 a second.
    matchmaking: { queue: { groupSize: 2, ratingWindow: { initial: 100, widenPerSec: 50, max: 1000 }, timeoutMs: 60_000 } },
  },
};
