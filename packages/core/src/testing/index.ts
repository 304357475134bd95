/**
 * Test a game the way it runs, in memory: a {@link TestRoom} makes the game's room with
 * `createRoom` on a `FakeClock`, and its {@link TestClient}s join, send inputs and room messages,
 * and read state, events, errors and closes through the game's own client declaration (the
 * `defineGameTypes` value the page connects with). No sockets, no Cloudflare, no real time; it
 * runs under vitest in Node or in workerd.
 *
 * @module @tikron/core/testing
 */
export { TestRoom, type TestRoomOptions } from "./testRoom";
export { TestClient, type JoinOptions, type TestFrame, type TestClientHost, type NamedError } from "./testClient";
export type { SocketClose } from "./testSocket";
export { MemoryRecording } from "./memoryRecording";
export { testPlayer } from "./testPlayer";
export { RelayedTestRoom, type RelayedTestRoomOptions, type RelayedJoinOptions } from "./relayedTestRoom";
