import { describe, expect, it } from "vitest";
import { type Field, bool, defineInput, defineInputs, defineSchema, f32, f64, map, quant, quantAngle, string, u16, u8, varint, varuint } from "@tikron/protocol";
import { SyncWorld } from "../../src/sync/syncWorld";
import { checkRoomSchema, maxFields, positionFields, typeNamed } from "../../src/sync/schemaLayout";

describe("what the world reads off a schema", () => {
  const schema = defineSchema({
    player: { x: quant(0, 8192, 1 / 16), y: quant(0, 8192, 1 / 16), r: quant(0, 2048, 1 / 8), name: string(16), score: varuint() },
    board: { scores: map(varuint()) },
  });

  it("finds a type by name and throws on an unknown one", () => {
    expect(typeNamed(schema, "board")).toBe(schema.types[1]);
    expect(() => typeNamed(schema, "nope")).toThrow(/unknown entity type nope/);
  });

  it("takes the widest type as the stride", () => {
    expect(maxFields(schema)).toBe(5);
  });

  it("gives a position only to types with numeric x and y", () => {
    expect(positionFields(typeNamed(schema, "player"))).toEqual([0, 1]);
    expect(positionFields(typeNamed(schema, "board"))).toEqual([-1, -1]);
    // Every numeric scalar kind is a position; bool, string and map are not.
    for (const x of [quant(0, 1, 0.5), quantAngle(4), u8(), u16(), varuint(), varint()]) {
      expect(positionFields(defineSchema({ t: { a: bool(), y: u8(), x } }).types[0]!)).toEqual([2, 1]);
    }
    for (const x of [bool(), string(2), map(u8())]) {
      expect(positionFields(defineSchema({ t: { y: u8(), x } }).types[0]!)).toEqual([-1, -1]);
    }
    // One numeric coordinate alone is not a position.
    for (const decl of [{ x: u8() }, { y: u8() }, { x: u8(), z: u8() }] as Record<string, Field>[]) {
      expect(positionFields(defineSchema({ t: decl }).types[0]!)).toEqual([-1, -1]);
    }
  });
});

describe("a schema a room cannot run", () => {
  it("is refused where its world is made: a float in an entity type, inputs a room could not read", () => {
    const types = { dot: { x: quant(0, 100, 1), y: quant(0, 100, 1) } };
    const options = { tiers: [{ radius: 50, every: 1 }] };
    expect(() => new SyncWorld(defineSchema({ dot: { x: quant(0, 100, 1), hp: f32(0, 1) } }), options)).toThrow("type dot.hp: f32(0,1) is for declared inputs; state fields are quantized");
    expect(() => checkRoomSchema(defineSchema({ dot: { t: f64(0, 1) } }))).toThrow(TypeError);
    expect(() => new SyncWorld(defineSchema(types, { inputs: defineInputs({ go: { kind: u8() } }) }), options)).toThrow("input go: a field may not be called kind");
    expect(() => new SyncWorld(defineSchema(types, { inputs: defineInput({ name: string(8) } as never) }), options)).toThrow(TypeError);
    expect(() => new SyncWorld(defineSchema(types, { inputs: defineInput({ dx: quant(-1, 1, 1 / 127), fire: bool() }) }), options)).not.toThrow();
  });
});
