/**
 * Game rooms built on the Tikron core. Games simulate; they never see sockets or runtimes.
 */
export { gameDefinitions } from "./gameDefinitions";
export { AgarGame, createAgar, type AgarConfig } from "./agar/agarGame";
export { AGAR_RULES } from "./agar/agarRules";
export { MovementGame, createMovement, type MovementConfig } from "./movement/movementGame";
export { MOVEMENT_RULES } from "./movement/movementRules";
export { FpsGame, createFps, type FpsConfig, type SpawnPoint } from "./fps/fpsGame";
export { FPS_RULES } from "./fps/fpsRules";
export { MoveBudget } from "./fps/moveBudget";
export { LagHistory, type HistoryPoint } from "./fps/lagHistory";
export { TicTacToeGame, TTT_RECENT_ROUNDS } from "./ttt/tttGame";
export { saveRound, recentRounds, MAX_HISTORY_ROUNDS, type ResultsDatabase, type TttEnv } from "./ttt/tttResults";
export { d1TttRecords, memoryTttRecords, recordStoreOf, keepsRecord, NO_RECORD, type TttRecordStore } from "./ttt/tttRecords";
export { winnerOf, isFull, emptyBoard, otherMark } from "./ttt/tttRules";
export * from "./schemas";
export { Random, seedFrom } from "./random";
export { agarBots, movementBots, fpsBots, tttBots, tttBotMove } from "./bots";
