/**
 * The relay-transport bench's message: a 16-byte header and zero padding to the size under test.
 * Both directions use it (the simulation's world update to a relay, a relay's batched inputs to
 * the simulation), so the receiver reads one layout whatever the transport carried it.
 *
 * `[u8 kind][u8 0][u16 source][u32 seq][f64 sentAtMs]` then padding, little-endian. `source` is
 * the relay's index (0 for the simulation); `sentAtMs` is the sender's clock when it sent, for the
 * one-way latency (every object of a local `wrangler dev` shares one clock).
 */

/** Bytes before the padding. */
export const PAYLOAD_HEADER_BYTES = 16;

/** Which way a message goes. */
export const PayloadKind = { update: 1, input: 2 } as const;
/** A {@link PayloadKind} value. */
export type PayloadKind = (typeof PayloadKind)[keyof typeof PayloadKind];

/** What a receiver reads back from a message. */
export interface PayloadHeader {
  kind: PayloadKind;
  source: number;
  seq: number;
  sentAtMs: number;
}

/** A zeroed message buffer of `size` bytes (at least the header), reused for every send. */
export function payloadBuffer(size: number): Uint8Array {
  if (!Number.isInteger(size) || size < PAYLOAD_HEADER_BYTES) throw new RangeError(`a payload needs at least ${PAYLOAD_HEADER_BYTES} bytes, not ${size}`);
  return new Uint8Array(size);
}

/** Writes the header into `buf` (padding untouched) and returns `buf`. */
export function writePayloadHeader(buf: Uint8Array, h: PayloadHeader): Uint8Array {
  if (buf.length < PAYLOAD_HEADER_BYTES) throw new RangeError(`buffer of ${buf.length} bytes is shorter than the header`);
  const v = new DataView(buf.buffer, buf.byteOffset, PAYLOAD_HEADER_BYTES);
  v.setUint8(0, h.kind);
  v.setUint8(1, 0);
  v.setUint16(2, h.source, true);
  v.setUint32(4, h.seq >>> 0, true);
  v.setFloat64(8, h.sentAtMs, true);
  return buf;
}

/** The header of a received message, or null when it is too short or of no known kind. */
export function readPayloadHeader(data: ArrayBuffer | ArrayBufferView): PayloadHeader | null {
  const bytes = ArrayBuffer.isView(data) ? data : new Uint8Array(data);
  if (bytes.byteLength < PAYLOAD_HEADER_BYTES) return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, PAYLOAD_HEADER_BYTES);
  const kind = v.getUint8(0);
  if (kind !== PayloadKind.update && kind !== PayloadKind.input) return null;
  return { kind, source: v.getUint16(2, true), seq: v.getUint32(4, true), sentAtMs: v.getFloat64(8, true) };
}
