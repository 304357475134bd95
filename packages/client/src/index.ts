/**
 * Tikron client SDK (browser and Node 22+).
 *
 * - {@link connect} joins a room and keeps the seat across drops (jittered, bounded backoff;
 *   join pacing on `room_full` / `join_throttled`), syncs the clock and emits typed events.
 * - {@link SnapshotBuffer} renders remote entities smoothly: interpolation with an adaptive delay,
 *   capped extrapolation, short-way angles, no allocation per frame.
 * - {@link Predictor} makes the local player respond at once and reconciles with the server.
 * - {@link ClockSync} and {@link Backoff} are usable on their own.
 *
 * A typical real-time client:
 * ```ts
 * const snaps = new SnapshotBuffer({ fields: ["x", "y", { name: "angle", interp: "angle" }] });
 * const me = new Predictor({ applyInput: move, error: distance });
 * const conn = connect("wss://play.example.com", { kind: "arena", room: "r1", decoder, snapshots: snaps, predictor: me });
 * conn.on("state", (f) => {
 *   snaps.beginSnapshot(f.time, f.receivedAt);
 *   for (const e of f.state.entities) if (e.id !== conn.playerId) snaps.setEntity(e.id, e.values);
 *   snaps.endSnapshot();
 *   me.reconcile(myAvatar(f.state), f.ackSeq >= 0 ? f.ackSeq : undefined);
 * });
 * onInput((input) => me.push(conn.sendInput(encode(input)), input));
 * requestAnimationFrame(function frame() {
 *   const t = snaps.update();
 *   snaps.forEach(t, (id, v) => draw(id, v[0], v[1], v[2]));
 *   drawMe(me.state);
 *   requestAnimationFrame(frame);
 * });
 * ```
 * @module @tikron/client
 */
export {
  connect,
  roomUrl,
  RoomConnection,
  type ConnectOptions,
  type ConnectionStatus,
  type RoomEvents,
  type StateEvent,
  type GameEvent,
  type RoomError,
  type CloseInfo,
  type ReconnectingInfo,
  type PredictionHooks,
} from "./connect";
export type { WelcomeInfo } from "./wire";
export { type StateDecoder, type DecoderResetInfo, rawDeltaDecoder, jsonStateDecoder } from "./decoder";
export { schemaDecoder, type SchemaDecoderOptions } from "./schemaDecoder";
export type { WebSocketLike, WebSocketConstructor } from "./socket";
export type { ConnectionStats } from "./stats";
export { Backoff, type BackoffOptions, type JitterMode } from "./backoff";
export { ReconnectPolicy, isRetryableClose, type ReconnectOptions, type ReconnectDecision } from "./reconnect";
export { ClockSync, type ClockSyncOptions } from "./clockSync";
export {
  SnapshotBuffer,
  SampleKind,
  type SnapshotBufferOptions,
  type FieldSpec,
  type FieldInterp,
} from "./snapshotBuffer";
export { Predictor, type PredictorOptions } from "./prediction";
