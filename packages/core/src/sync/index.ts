/**
 * State sync for binary rooms: the entity store games write to ({@link SyncWorld}), viewers,
 * and the per-client delta encoder the room flushes through ({@link SchemaStateEncoder}).
 *
 * @module @tikron/core/sync
 */
export { SyncWorld, type SyncWorldOptions, type SpawnOptions } from "./syncWorld";
export { SchemaStateEncoder } from "./schemaStateEncoder";
export { Viewer, ViewerMode } from "./viewer";
export type { SyncClient } from "./syncClient";
