import type { agarSchema, fpsSchema, movementSchema } from "@tikron/games/schemas";
import type { ClientView, EntityRecord } from "@tikron/protocol";

/**
 * The decoded entity records of the demo's games, named once for the sessions that keep them and
 * the renderers that draw them. Records are the decoder's, updated in place by its view.
 */

/** Schema declarations of the agar room. */
export type AgarDecl = (typeof agarSchema)["decl"];
/** The decoded agar state. */
export type AgarView = ClientView<AgarDecl>;
/** An agar player's cell. */
export type PlayerRecord = EntityRecord<AgarDecl["player"]>;
/** An agar orb. */
export type OrbRecord = EntityRecord<AgarDecl["orb"]>;

/** Schema declarations of the fps room. */
export type FpsDecl = (typeof fpsSchema)["decl"];
/** The decoded fps state. */
export type FpsView = ClientView<FpsDecl>;
/** An fps player. */
export type ShooterRecord = EntityRecord<FpsDecl["player"]>;
/** The fps scoreboard (kills and deaths by player id). */
export type ScoreRecord = EntityRecord<FpsDecl["scoreboard"]>;

/** Schema declarations of the movement room. */
export type MovementDecl = (typeof movementSchema)["decl"];
/** The decoded movement state. */
export type MovementView = ClientView<MovementDecl>;
/** A movement player (records carry no player id: the own dot is found by name). */
export type WalkerRecord = EntityRecord<MovementDecl["player"]>;
