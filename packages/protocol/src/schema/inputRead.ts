import { reject, type InputRejection } from "../inputRejection";
import type { EventKind } from "./events";
import { MAX_INPUT_PAYLOAD_BYTES } from "../constants";
import type { Field } from "./field";
import { type InputSchema, fieldBytes, fieldName, inputMaxBytes, inputValue } from "./inputs";
import { FIELD_BOOL, FIELD_F32, FIELD_F64, FIELD_VARINT } from "../wireCodes";

/*
 * The room's side of declared inputs: reads one payload as `inputs.ts` describes it and refuses,
 * naming the field, anything a sender's `writeInput` could not have written. Kept apart from the
 * declaration so a browser page, which only writes inputs, bundles none of it.
 */

/**
 * Refuses a declaration a room cannot read its inputs by (the room's side of `defineInput` /
 * `defineInputs`; the core runs it when it makes a room whose schema declares inputs): a string
 * or map field (inputs carry numbers and booleans; typed declarations cannot have one), with
 * kinds a kind named "" (it would hash like an untagged declaration) or a field called `kind`
 * (the kind's name goes there), and a payload that could pass `MAX_INPUT_PAYLOAD_BYTES`.
 *
 * @throws TypeError or RangeError naming the field.
 */
export function checkInputSchema(inputs: InputSchema<unknown>): void {
  for (const k of inputs.kinds) {
    if (inputs.tagged && !k.name) throw new TypeError("input kinds need names");
    for (const f of k.fields) {
      const code = f.field.code;
      if (code > FIELD_BOOL && code < FIELD_F32) throw new TypeError(`input ${fieldName(k.name, f)}: ${f.field.descriptor} is not an input field (numbers and booleans only)`);
      if (inputs.tagged && f.name === "kind") throw new TypeError(`input ${k.name}: a field may not be called kind`);
    }
  }
  const most = inputMaxBytes(inputs);
  if (most > MAX_INPUT_PAYLOAD_BYTES) throw new RangeError(`inputs of up to ${most} bytes: at most ${MAX_INPUT_PAYLOAD_BYTES}`);
}

/** Turns the bytes of an f32 / f64 into the float without a view per read. */
const scratch = new DataView(new ArrayBuffer(8));

/**
 * Reads one declared input payload (what a game's `decodeInput` returns for a declaring room):
 * the record, or a `bad_input` {@link InputRejection} whose reason names the field. Refused: a
 * payload that is not bytes, an unknown kind, a payload that ends inside a field or has bytes
 * past the last one, a quantized level past the field's range, a varuint over 32 bits, and a
 * float that is NaN, ±Infinity or outside its `[min, max]`. Allocates only the record.
 */
export function readInput<I>(inputs: InputSchema<I>, payload: unknown): I | InputRejection {
  if (!(payload instanceof Uint8Array)) return reject("bad_input", "input must be bytes");
  const n = payload.length;
  let kind: EventKind | undefined = inputs.kinds[0];
  let at = 0;
  if (inputs.tagged) {
    if (n === 0) return reject("bad_input", "input: empty (no kind)");
    kind = inputs.kinds[payload[at++]!];
    if (!kind) return reject("bad_input", `input: unknown kind ${payload[0]}`);
  }
  const out: Record<string, unknown> = inputs.tagged ? { kind: kind!.name } : {};
  for (const f of kind!.fields) {
    const field = f.field;
    const bytes = fieldBytes(field);
    let v = 0;
    if (bytes === 0) {
      // A varuint of at most 32 bits (5 bytes, the fifth holding 4 bits).
      for (let shift = 0; ; shift += 7) {
        if (at >= n) return reject("bad_input", `input ${fieldName(kind!.name, f)}: truncated`);
        const b = payload[at++]!;
        if (shift === 28 && b > 0x0f) return reject("bad_input", `input ${fieldName(kind!.name, f)}: varuint over 32 bits`);
        v |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
      v = field.code === FIELD_VARINT ? (v >>> 1) ^ -(v & 1) : v >>> 0;
    } else {
      if (at + bytes > n) return reject("bad_input", `input ${fieldName(kind!.name, f)}: truncated`);
      if (bytes === 1) v = payload[at]!;
      else if (bytes === 2) v = payload[at]! | (payload[at + 1]! << 8);
      else {
        for (let i = 0; i < bytes; i++) scratch.setUint8(i, payload[at + i]!);
        v = bytes === 4 ? scratch.getFloat32(0, true) : scratch.getFloat64(0, true);
      }
      at += bytes;
    }
    const problem = outOfRange(field, v);
    if (problem) return reject("bad_input", `input ${fieldName(kind!.name, f)}: ${problem}`);
    out[f.name] = inputValue(field, v);
  }
  if (at !== n) return reject("bad_input", `input: ${n} bytes where the declaration reads ${at}`);
  return out as I;
}

/** Why `v` read for `f` is not a value a sender could have written, or "" when it is. */
function outOfRange(f: Field, v: number): string {
  if (f.code === FIELD_F32 || f.code === FIELD_F64) {
    if (!Number.isFinite(v)) return `${v} is not a finite number`;
    return v >= f.min && v <= f.max ? "" : `${v} is outside ${f.min}..${f.max}`;
  }
  // levels 0: varuint / varint, whose every value is one.
  return f.levels === 0 || v < f.levels ? "" : `level ${v} is past the last of ${f.levels} (${f.descriptor})`;
}
