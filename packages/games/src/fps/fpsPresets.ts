import type { RoomOptions } from "@tikron/core";

/**
 * Loop presets of the fps room: simulation rate (`tickMs`) and state send rate
 * (`syncIntervalMs`).
 *
 * - `hz20`, `hz30`: one state frame per tick.
 * - `hz60`: simulates and records lag snapshots every 16 ms (finer move draining and hit
 *   rewinds) but sends state every 2nd tick (32 ms). Clients interpolate between frames anyway,
 *   and under fan-out the bytes and sends scale with the send rate, not the tick rate, so 60 Hz
 *   sends would nearly double the cost for no visible gain.
 *
 * Inputs stay queued to the tick (`queueInputs: true`, the core default) in every preset:
 * acking each input as it arrives would add one socket write per input per player, which under
 * fan-out multiplies writes; queued inputs ride out with the next state frame instead.
 *
 * Clients should batch: send the moves of their render frames since the last send in one
 * INPUT message (up to 16), about once per sync interval, to stay under the per-connection
 * message rate.
 */
export const FPS_PRESETS = {
  hz20: { tickMs: 50, syncIntervalMs: 50 },
  hz30: { tickMs: 33, syncIntervalMs: 33 },
  hz60: { tickMs: 16, syncIntervalMs: 32 },
} as const satisfies Record<string, Pick<RoomOptions, "tickMs" | "syncIntervalMs">>;

/** Name of an {@link FPS_PRESETS} entry. */
export type FpsPresetName = keyof typeof FPS_PRESETS;
