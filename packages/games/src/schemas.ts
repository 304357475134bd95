/**
 * Wire-level declarations of every game (schemas with their events and declared inputs; ttt's
 * input decoder) and the movement rules
 * a client predicts with, importable by clients and the load tool without pulling in room logic.
 * Nothing reachable from here may import room code (`@tikron/core`'s Room, SyncWorld, ...):
 * `test/schemasEntry.test.ts` walks the import graph to keep it so.
 */
export { agarSchema, AGAR_MAX_WORLD } from "./agar/agarSchema";
export { AGAR_RULES, speedFor as agarSpeedFor } from "./agar/agarRules";
export { stepAgarCell, type AgarCellState, type AgarSteer } from "./agar/agarMotion";
export { FPS_RULES } from "./fps/fpsRules";
export { stepShooter, shooterStepLength, clampToArena, type ShooterBody, type ShooterStick } from "./fps/fpsMotion";
export { rayCircle, rayExitSquare } from "./fps/hitscan";
export { agarInputs, type AgarInput } from "./agar/agarInput";
export { STICK_STEP, stickAxis, stickScale } from "./stick";

export { movementSchema, MOVEMENT_MAX_WORLD } from "./movement/movementSchema";
export { movementInputs, type MovementInput } from "./movement/movementInput";

export { fpsSchema, fpsEvents, FPS_MAX_WORLD, type FpsEvent, type FpsTracerEvent, type FpsKillEvent } from "./fps/fpsSchema";
export { fpsInputs, FPS_MAX_SHOT_TIME, type FpsInput, type FpsMove, type FpsShot } from "./fps/fpsInput";
export { FPS_PRESETS, type FpsPresetName } from "./fps/fpsPresets";

export { decodeTttInput, type TttInput } from "./ttt/tttInput";
export type { TttView, TttSeatView } from "./ttt/tttView";
export type { TttRoundResult } from "./ttt/tttResults";
export type { TttRecord, TttOutcome } from "./ttt/tttEnv";
export { tttJoinOptions, type TttPlayerOptions, type TttWhoAmI, type TttMessages } from "./ttt/tttJoin";
export { TTT_LINES, type Mark, type Board } from "./ttt/tttRules";
export { MOVEMENT_RULES } from "./movement/movementRules";

export { agarTypes, movementTypes, fpsTypes, tttTypes } from "./clientTypes";
