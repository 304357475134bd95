import type { GameDefinition } from "@tikron/core";
import { createAgar } from "./agar/agarGame";

/** Every room kind the gateway hosts, by kind name. */
export const gameDefinitions: Readonly<Record<string, GameDefinition>> = {
  agar: {
    kind: "agar",
    defaults: { tickMs: 50, syncIntervalMs: 50, cap: 20 },
    create: (options, params) => createAgar(options, params),
  },
};
