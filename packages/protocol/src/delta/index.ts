export { DeltaSection, MAX_ENTITY_ID, writeDeltaSections } from "./deltaFormat";
export { ClientView, type ViewEntity, type AnyViewEntity, type ClientViewListener } from "./clientView";
export type { FieldName, EntityWithField, FieldValueOf, FieldChangeCallback } from "./viewWatchers";
