import type { GameDefinition } from "@tikron/core";
import { createAgar } from "./agar/agarGame";
import { FPS_PRESETS } from "./fps/fpsPresets";
import { createShooter } from "./fps/shooterGame";
import { createMovement } from "./movement/movementGame";
import { TicTacToeGame } from "./ttt/tttGame";

/** Every room kind the gateway hosts, by kind name. */
export const gameDefinitions: Readonly<Record<string, GameDefinition>> = {
  agar: {
    kind: "agar",
    defaults: { tickMs: 50, syncIntervalMs: 50, cap: 20 },
    create: (options, params) => createAgar(options, params),
  },
  movement: {
    kind: "movement",
    // 20 Hz both ways: everyone sees everyone, so a flush costs cap² entity updates.
    defaults: { tickMs: 50, syncIntervalMs: 50, cap: 64 },
    create: (options, params) => createMovement(options, params),
  },
  fps: {
    kind: "fps",
    // Inputs stay queued to the tick (see FPS_PRESETS): immediate per-input acks multiply writes.
    defaults: { ...FPS_PRESETS.hz30, cap: 100, queueInputs: true },
    create: (options, params) => createShooter(options, params),
  },
  "ttt-json": {
    kind: "ttt-json",
    defaults: { cap: 2 },
    create: () => new TicTacToeGame(),
  },
};
