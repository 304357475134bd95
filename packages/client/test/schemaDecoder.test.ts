import { describe, expect, it } from "vitest";
import { FrameWriter, DecodeError, DeltaSection, defineSchema, quant, quantize, string, u8, writeScalarDelta, writeScalarFull } from "@tikron/protocol";
import { schemaDecoder } from "../src/schemaDecoder";

const schema = defineSchema({
  ball: { x: quant(0, 100, 0.5), y: quant(0, 100, 0.5), label: string(8) },
  tag: { color: u8() },
});
const X = schema.types[0]!.fields[0]!.field;

/** One enter of a ball (id, x, y, label), written the way the server's encoder lays it out. */
function enterBall(id: number, x: number, y: number, label: string): Uint8Array {
  const w = new FrameWriter();
  w.u8(DeltaSection.Enters).varuint(1).varuint(id).varuint(0);
  writeScalarFull(w, X, quantize(X, x));
  writeScalarFull(w, X, quantize(X, y));
  w.string(label);
  return w.toBytes();
}

/** An update of a ball's x only (mask bit 0), relative to `fromX`. */
function moveBall(id: number, fromX: number, toX: number): Uint8Array {
  const w = new FrameWriter();
  w.u8(DeltaSection.Updates).varuint(1).varuint(id).varuint(1);
  writeScalarDelta(w, X, quantize(X, toX), quantize(X, fromX));
  return w.toBytes();
}

describe("schemaDecoder", () => {
  it("carries the schema hash so a mismatched room is refused", () => {
    expect(schemaDecoder(schema).schemaHash).toBe(schema.hash);
  });

  it("applies enters and updates to a live view", () => {
    const d = schemaDecoder(schema);
    d.reset({ schemaHash: schema.hash, json: false, reconnected: false });
    d.apply(enterBall(3, 10, 20, "a"));
    const view = d.state;
    expect(view.get(3)?.record).toEqual({ x: 10, y: 20, label: "a" });
    d.apply(moveBall(3, 10, 12.5));
    // The same view object, updated in place.
    expect(d.state).toBe(view);
    expect(view.get(3)?.record).toMatchObject({ x: 12.5, y: 20 });
  });

  it("throws the view's DecodeError on a bad body and starts over after reset", () => {
    const d = schemaDecoder(schema);
    d.reset({ schemaHash: schema.hash, json: false, reconnected: false });
    expect(() => d.apply(moveBall(9, 0, 1))).toThrow(DecodeError);
    // Half-applied views refuse everything until the next baseline.
    expect(() => d.apply(enterBall(1, 1, 1, "b"))).toThrow(DecodeError);
    d.reset({ schemaHash: schema.hash, json: false, reconnected: true });
    d.apply(enterBall(1, 1, 1, "b"));
    expect(d.state.size).toBe(1);
  });

  it("rejects JSON state bodies as undecodable (a JSON room is refused by its schema hash first)", () => {
    const d = schemaDecoder(schema);
    expect(() => d.apply({ not: "bytes" })).toThrow(DecodeError);
    // Like any refused body: nothing applies until the next baseline.
    expect(() => d.apply(enterBall(1, 1, 1, "b"))).toThrow(DecodeError);
    d.reset({ schemaHash: schema.hash, json: false, reconnected: true });
    d.apply(enterBall(1, 1, 1, "b"));
    expect(d.state.size).toBe(1);
  });

  it("passes the event decoder through; entity callbacks are the view's", () => {
    const entered: number[] = [];
    const d = schemaDecoder(schema, { decodeEvent: (b) => (b as Uint8Array).length });
    d.state.onAdd((e) => entered.push(e.id));
    d.apply(enterBall(4, 0, 0, ""));
    expect(entered).toEqual([4]);
    expect(d.decodeEvent?.(new Uint8Array(3))).toBe(3);
    expect(schemaDecoder(schema).decodeEvent).toBeUndefined();
  });
});
