/**
 * Spectators: sockets that watch a room without a seat (no inputs, apart from the cap, behind
 * the live match by a delay), fed by the room's world stream and encoded once per target group
 * per flush ({@link SpectatorHub}; AGENTS.md "Spectators").
 */
export { SpectatorHub, SPECTATOR_ID_BASE, type SpectatorHubInit } from "./spectatorHub";
export type { SpectatorStats, SpectatorCounters } from "./spectatorStats";
export { RoomSpectators } from "./roomSpectators";
