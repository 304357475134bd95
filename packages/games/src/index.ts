/**
 * Game rooms built on the Tikron core. Games simulate; they never see sockets or runtimes.
 */
export { gameDefinitions } from "./gameDefinitions";
export { AgarGame, createAgar, type AgarConfig } from "./agar/agarGame";
export { AGAR_RULES } from "./agar/agarRules";
export * from "./schemas";
export { Random, seedFrom } from "./random";
