import { defineGameTypes, defineMessages, jsonDialect } from "@tikron/protocol";
import { encodeAgarInput, type AgarInput } from "./agar/agarInput";
import { agarSchema } from "./agar/agarSchema";
import { encodeFpsMove, encodeFpsShot, type FpsInput } from "./fps/fpsInput";
import { fpsSchema } from "./fps/fpsSchema";
import { encodeMovementInput, type MovementInput } from "./movement/movementInput";
import { movementSchema } from "./movement/movementSchema";
import type { TttInput } from "./ttt/tttInput";
import { tttJoinOptions, type TttMessages } from "./ttt/tttJoin";
import type { TttView } from "./ttt/tttView";

/*
 * The built-in games as clients see them: `connect(url, { game: agarTypes, room })` gives a
 * connection whose inputs, events and state are these games' types. Codecs only, no room code.
 */

/** `agar`: steering inputs, no events, the agar schema's view. */
export const agarTypes = defineGameTypes<AgarInput>()({
  kind: "agar",
  schema: agarSchema,
  encodeInput: (input, w) => encodeAgarInput(w, input),
});

/** `movement`: steering inputs with sprint, no events, the movement schema's view. */
export const movementTypes = defineGameTypes<MovementInput>()({
  kind: "movement",
  schema: movementSchema,
  encodeInput: (input, w) => encodeMovementInput(w, input),
});

/** `fps`: moves and shots in, the schema's declared tracers and kills out, the fps schema's view. */
export const fpsTypes = defineGameTypes<FpsInput>()({
  kind: "fps",
  schema: fpsSchema,
  encodeInput: (input, w) => (input.kind === "move" ? encodeFpsMove(w, input) : encodeFpsShot(w, input)),
});

/**
 * `ttt-json`: cell or rematch inputs as JSON, no events, each player's {@link TttView}; the mark
 * a player asks for as its join option, and `whoami` (the room's record of the player).
 */
export const tttTypes = defineGameTypes<TttInput, never, TttView>()({ kind: "ttt-json", json: jsonDialect, joinOptions: tttJoinOptions, messages: defineMessages<TttMessages>() });
