/**
 * State sync for binary rooms: the entity store games write to ({@link SyncWorld}), viewers,
 * the per-client delta encoder the room flushes through ({@link SchemaStateEncoder}), and a
 * world's entities as a checkpoint ({@link checkpointWorld}, {@link readWorldCheckpoint}), whole or
 * as a chain of pieces ({@link WorldChain}), and
 * the feed that lets a relay encode a simulation's clients ({@link WorldFeed}, {@link MirrorWorld}).
 *
 * @module @tikron/core/sync
 */
export { SyncWorld, MAX_RESTORED_ENTITY_ID, type SyncWorldOptions, type SpawnOptions } from "./syncWorld";
export { checkpointWorld, readWorldCheckpoint, joinWorldChain, findWorldPiece, WorldChain, WORLD_CHAIN_LIMITS, type WorldChainLimits, type WorldCheckpoint, type SavedEntity } from "./worldCheckpoint";
export { SchemaStateEncoder } from "./schemaStateEncoder";
export { WorldFeed } from "./worldFeed";
export { MirrorWorld, MAX_MIRRORED_SLOTS, type FeedApplied } from "./mirrorWorld";
export { Viewer, ViewerMode } from "./viewer";
export type { SyncClient } from "./syncClient";
