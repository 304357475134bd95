import { defineGameTypes, defineMessages, jsonDialect } from "@tikron/protocol";
import { agarSchema } from "./agar/agarSchema";
import { fpsSchema } from "./fps/fpsSchema";
import { movementSchema } from "./movement/movementSchema";
import type { TttInput } from "./ttt/tttInput";
import { tttJoinOptions, type TttMessages } from "./ttt/tttJoin";
import type { TttView } from "./ttt/tttView";

/*
 * The built-in games as clients see them: `connect(url, { game: agarTypes, room })` gives a
 * connection whose inputs, events and state are these games' types. Declarations only, no room
 * code: the binary games' inputs are declared on their schemas, which encode them.
 */

/** `agar`: steering inputs (declared, 3 bytes), no events, the agar schema's view. */
export const agarTypes = defineGameTypes()({ kind: "agar", schema: agarSchema });

/** `movement`: steering inputs with sprint (declared, 3 bytes), no events, the movement schema's view. */
export const movementTypes = defineGameTypes()({ kind: "movement", schema: movementSchema });

/** `fps`: moves and shots in (declared kinds), the schema's declared tracers and kills out, the fps schema's view. */
export const fpsTypes = defineGameTypes()({ kind: "fps", schema: fpsSchema });

/**
 * `ttt-json`: cell or rematch inputs as JSON, no events, each player's {@link TttView}; the mark
 * a player asks for as its join option, and `whoami` (the room's record of the player).
 */
export const tttTypes = defineGameTypes<TttInput, never, TttView>()({ kind: "ttt-json", json: jsonDialect, joinOptions: tttJoinOptions, messages: defineMessages<TttMessages>() });
