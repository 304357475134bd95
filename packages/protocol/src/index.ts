/**
 * Tikron wire protocol: the binary frames (and JSON text mode) spoken between the room core,
 * the client SDK and the load tool. No runtime dependencies; no Node- or Workers-only APIs.
 *
 * @module @tikron/protocol
 */
export { BinaryWriter, textEncoder } from "./binaryWriter";
export { FrameWriter } from "./frameWriter";
export { BinaryReader, f32At } from "./binaryReader";
export { PayloadReader } from "./payloadReader";
export { DecodeError, isDecodeError, type DecodeErrorCode } from "./decodeError";
export * from "./constants";
export * from "./errorCodes";
export { reject, isRejection, type InputRejection, type Rejection } from "./inputRejection";
export * from "./clientMessages";
export * from "./clientDialects";
export * from "./inputFrame";
export * from "./frameHeader";
export * from "./serverMessages";
export type { ServerFields } from "./serverFields";
export { MAX_REASON_BYTES, clipReason } from "./serverFields";
export * from "./jsonMessages";
export * from "./cadence";
export * from "./joinUrl";
export * from "./spectate";
export * from "./bundle";
export * from "./schema";
export * from "./delta";
export * from "./gameTypes";
export * from "./joinOptions";
export * from "./receipts";
export * from "./roomMessages";
export * from "./match";
export * from "./party";
export * from "./admin";
export * from "./adminAnswers";
