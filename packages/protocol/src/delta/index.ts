export { DeltaSection, MAX_ENTITY_ID, writeDeltaSections } from "./deltaFormat";
export { ClientView } from "./clientView";
export type { ViewEntity, AnyViewEntity } from "./viewEntity";
export type { FieldName, EntityWithField, FieldValueOf, FieldChangeCallback, FieldValueCallback, WatchOptions } from "./viewWatchers";
