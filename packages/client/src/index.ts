/**
 * Tikron client SDK (browser and Node 22+).
 *
 * - {@link connect} joins a room and keeps the seat across drops (jittered, bounded backoff;
 *   join pacing on `join_throttled`) and emits typed events; a refused join rejects
 *   `whenJoined()` with a {@link JoinError} (`unauthorized`, `room_full`, …). What a game may
 *   not use is opt-in, bundled only when used: a synced clock (`clock: new ClockSync()`), room
 *   messages and requests ({@link withMessages}), input batching ({@link inputBatching}); watching
 *   a room as a spectator is an entry of its own (`@tikron/client/watch`: no seat, no inputs, a
 *   target to follow, a delay).
 * - {@link createInterpolatedView} draws remote entities smoothly: it feeds the connection's
 *   decoded states into a {@link SnapshotBuffer} (interpolation with an adaptive delay, capped
 *   extrapolation, short-way angles, no allocation per frame) and reads them back per frame.
 * - {@link Predictor} makes the local player respond at once and reconciles with the server.
 * - {@link ClockSync} and {@link Backoff} are usable on their own.
 *
 * A typical real-time client:
 * ```ts
 * const me = new Predictor({ applyInput: move, error: distance });
 * const conn = connect("wss://play.example.com", { kind: "arena", room: "r1", decoder: schemaDecoder(arenaSchema), predictor: me });
 * const v = new Float64Array(3);
 * const remotes = createInterpolatedView(conn, {
 *   fields: ["x", "y", { name: "angle", interp: "angle" }],
 *   collect(view, put) {
 *     for (const e of view.values()) {
 *       if (e.record.pid === conn.playerId) continue;
 *       v[0] = e.record.x; v[1] = e.record.y; v[2] = e.record.angle;
 *       put(e.id, v);
 *     }
 *   },
 * });
 * conn.on("state", (f) => me.reconcile(myAvatar(f.state), f.ackSeq >= 0 ? f.ackSeq : undefined));
 * onInput((input) => me.push(conn.sendInput(encode(input)), input));
 * requestAnimationFrame(function frame(now) {
 *   remotes.update(now);
 *   remotes.forEach((id, v) => draw(id, v[0], v[1], v[2]));
 *   drawMe(me.state);
 *   requestAnimationFrame(frame);
 * });
 * ```
 * @module @tikron/client
 */
export { connect, RoomConnection } from "./connect";
export type { RoomConnectionApi } from "./roomConnectionApi";
export { RoomEmitter } from "./listeners";
export { CloseCode, ErrorCode, errorName, closeName, jsonDialect, OPERATOR_NOTICE, type CloseName, type ErrorName, type ClientDialect, type JsonDialect } from "@tikron/protocol";
export type { GameTypes, InputOf, EventOf, StateOf, MessagesOf, MessageName, MessageRequest, MessageResponse, AnyMessages, NoticesOf, Notice, AnyNotices, DeclaredEvent } from "@tikron/protocol";
export { RequestError } from "@tikron/protocol";
export { withMessages, type RoomMessaging } from "./messaging";
export { JoinError, gameRefusal, type GameRefusal } from "./joinError";
export { roomUrl } from "./roomUrl";
export type { ConnectOptions, GameConnectOptions, PredictionHooks } from "./connectOptions";
export { inputBatching, type InputBatching, type InputBatch } from "./inputs";
export type { ConnectionStatus, RoomEvents, StateEvent, GameEvent, RoomError, CloseInfo, ReconnectingInfo, CadenceInfo } from "./roomEvents";
export type { WelcomeInfo } from "./wire";
export { type StateDecoder, type DecoderResetInfo, rawDeltaDecoder, jsonStateDecoder } from "./decoder";
export { schemaDecoder, type SchemaDecoderOptions } from "./schemaDecoder";
export type { WebSocketLike, WebSocketConstructor } from "./socket";
export type { ConnectionStats } from "./stats";
export { Backoff, type BackoffOptions, type JitterMode } from "./backoff";
export { ReconnectPolicy, isRetryableClose, type ReconnectOptions, type ReconnectDecision } from "./reconnect";
export { ClockSync, type ClockSyncOptions } from "./clockSync";
export { SnapshotBuffer, type SnapshotBufferOptions } from "./snapshotBuffer";
export { SampleKind, type FieldSpec, type FieldInterp } from "./sampling";
export type { PlayoutClockOptions } from "./playoutClock";
export { InterpolatedView, createInterpolatedView, type InterpolatedViewOptions, type EntitySink } from "./interpolatedView";
export { attachSnapshots } from "./snapshotLink";
export { Predictor, type PredictorOptions } from "./prediction";
export { matchmaker, MatchClient, type MatchmakerOptions, type QueueOptions } from "./matchmaker";
export type { MatchOptions, JoinOptions, ConnectionOf } from "./seatJoin";
export { party, Party, type PartyOptions, type PartyStart } from "./party";
export type { MatchFilters, RoomListing, SeatReservation, RoomMetadata, PartyView, PartyMember, PartyState } from "@tikron/protocol";
