/**
 * Wire-level declarations of every game (schemas and input codecs), importable by clients and
 * the load tool without pulling in room logic.
 */
export { agarSchema, AGAR_MAX_WORLD } from "./agar/agarSchema";
export { encodeAgarInput, decodeAgarInput, AGAR_INPUT_BYTES, type AgarInput } from "./agar/agarInput";
