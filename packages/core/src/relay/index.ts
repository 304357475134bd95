/**
 * Relays: a room whose world is simulated in one place and whose sockets are held by K relays
 * (see AGENTS.md, "Relays"). The simulation ({@link RelaySimulation}) runs the game and the
 * seats; each relay ({@link RelayRoom}) holds its clients' sockets and encodes their frames from
 * a mirror of the world; they talk only through a {@link RelayPort} carrying bytes.
 */
export { RelaySimulation } from "./simulation";
export { RelayRoom, type RelayInit } from "./relayRoom";
export { MemoryPort, type RelayPort, type RelayReceiver } from "./relayPort";
export { createPlacedRoom, createRelay, createSimulation, type PlacedRoom } from "./relayFactory";
export { RelinkBackoff, relinkRelay, RELINK_FIRST_WAIT_MS, RELINK_MAX_WAIT_MS, RELINK_GIVE_UP_MS, type LinkAttempt, type RelinkOutcome, type RelinkSteps } from "./relinkBackoff";
export { RELAY_REPORT_MS, acrossRelays, relayObjectStats, relayedStats, type RelayObjectStats, type RelayStatsReport, type RelayedStatsSnapshot, type SimulationOwnStats } from "./relayReport";
