export {
  Field,
  FieldCode,
  type FieldCodeValue,
  type ScalarField,
  quant,
  quantAngle,
  f32,
  f64,
  u8,
  u16,
  varuint,
  varint,
  bool,
  string,
  map,
  quantize,
  dequantize,
  normalizeString,
} from "./field";
export {
  writeScalarFull,
  readScalarFull,
  writeScalarDelta,
  readScalarDelta,
  readStringField,
  writeMapChangeHeader,
  readMapKey,
} from "./fieldWire";
export {
  Schema,
  defineSchema,
  schemaHash,
  MAX_FIELDS_PER_TYPE,
  MAX_TYPES,
  type TypeDecl,
  type SchemaDecl,
  type FieldValue,
  type EntityRecord,
  type RecordOf,
  type TypeName,
  type FieldInfo,
  type EntityType,
  type SchemaOptions,
} from "./schema";
export { EventSchema, defineEvents, declaredEventDecoder, writeEvent, type EventDecl, type DeclaredEvent, type EventKind } from "./events";
export { InputSchema, defineInput, defineInputs, quantizeInput, inputMaxBytes, type InputDecl } from "./inputs";
export { readInput, checkInputSchema } from "./inputRead";
