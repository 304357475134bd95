/** What a run's spectators saw (`--spectators N`; run/spectatorSwarm.ts measures it). */

/** What the spectators of a run saw (report `summary.spectators`). */
export interface SpectatorSummary {
  requested: number;
  /** Spectators welcomed. */
  joined: number;
  /** Spectators refused or closed by the room, by close code. */
  closes: Record<string, number>;
  /** Frames received by all of them (every frame of a bundle counted: what they decode). */
  frames: number;
  /** Messages carrying frames received by all of them (a bundle is one; optional in reports before bundles). */
  messages?: number;
  /** Frames per second of each welcomed spectator over its window (first frame + 1 s to the end): min, p5, p50. */
  framesPerSec: { min: number; p5: number; p50: number } | null;
  /** Messages carrying frames per second of each welcomed spectator, p50: half the frames/s with bundles of 2 (delay 1 s). */
  messagesPerSec?: { p50: number } | null;
  /** Gaps between a spectator's messages carrying frames (ms), over every spectator: p50, p99, max. */
  gapMs: { p50: number; p99: number; max: number } | null;
  /** Welcomed spectators under 19 frames/s (the bar of issue 34). */
  below19: number;
}
