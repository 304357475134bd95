/**
 * Node host for Tikron rooms: the same core `Room` the Cloudflare adapter hosts, served over
 * `ws` from a plain Node process (loopback by default). See README.md.
 *
 * @module @tikron/node
 */
export { serveRooms, type RoomServer, type ServeRoomsOptions, type CheckpointKeeper } from "./roomServer";
export { WsConnection } from "./wsConnection";
export { NodeReplays, type NodeReplayOptions } from "./nodeReplays";
