import {
  BinaryWriter,
  MAX_INPUTS_PER_FRAME,
  PROTOCOL_VERSION,
  encodeHello,
  encodeInputs,
  encodeLeave,
  encodeReceipt,
  encodeRoomMessage,
  type InputEntry,
} from "@tikron/protocol";

/**
 * What a test client says to the room, in the dialect its game declaration speaks: the same
 * messages the SDK sends (hello, inputs, room messages, receipts, leave), encoded by the
 * protocol's own encoders (`toBytes()` copies, so the writer is free for the next message).
 */
export class TestWire {
  readonly #w = new BinaryWriter(256);

  constructor(readonly json: boolean) {}

  hello(token: string, name: string): Uint8Array | string {
    if (this.json) return JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token, name });
    return encodeHello(this.#w.reset(), { version: PROTOCOL_VERSION, token, name }).toBytes();
  }

  /**
   * Inputs as the SDK batches them: binary rooms get INPUT frames of up to MAX_INPUTS_PER_FRAME
   * entries each, JSON rooms one `input` message per entry.
   */
  inputs(entries: readonly { seq: number; payload: unknown }[]): (Uint8Array | string)[] {
    if (this.json) return entries.map((e) => JSON.stringify({ t: "input", seq: e.seq, data: e.payload }));
    const out: Uint8Array[] = [];
    for (let i = 0; i < entries.length; i += MAX_INPUTS_PER_FRAME) {
      // The caller checked that binary payloads are bytes.
      const chunk = entries.slice(i, i + MAX_INPUTS_PER_FRAME) as InputEntry[];
      out.push(encodeInputs(this.#w.reset(), chunk).toBytes());
    }
    return out;
  }

  /** A room message; `requestId` 0 asks for no reply. `json` is the payload's JSON text. */
  message(requestId: number, type: string, json: string): Uint8Array | string {
    if (this.json) return `{"t":"msg","type":${JSON.stringify(type)},"id":${requestId},"data":${json}}`;
    return encodeRoomMessage(this.#w.reset(), requestId, type, json).toBytes();
  }

  receipt(messages: number, units: number): Uint8Array | string {
    const m = messages % 0x100000000;
    const b = units % 0x100000000;
    if (this.json) return JSON.stringify({ t: "rc", m, b });
    return encodeReceipt(this.#w.reset(), m, b).toBytes();
  }

  leave(): Uint8Array | string {
    return this.json ? JSON.stringify({ t: "leave" }) : encodeLeave(this.#w.reset()).toBytes();
  }
}
