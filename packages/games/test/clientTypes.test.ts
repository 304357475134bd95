/**
 * The built-in games' client declarations: their codecs agree with the rooms' decoders, and
 * their types are the games' own (the `@ts-expect-error` lines are checked by the typecheck).
 */
import { BinaryWriter, ClientView, FrameWriter, readInput, writeEvent, type InputOf, type StateOf, type EventOf } from "@tikron/protocol";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  agarSchema,
  agarInputs,
  agarTypes,
  fpsEvents,
  fpsInputs,
  fpsTypes,
  movementInputs,
  movementTypes,
  tttTypes,
  type AgarInput,
  type FpsEvent,
  type FpsInput,
  type TttInput,
  type TttView,
} from "../src/schemas";
import { gameDefinitions } from "../src/gameDefinitions";

describe("client game declarations", () => {
  it("name hosted kinds", () => {
    for (const g of [agarTypes, movementTypes, fpsTypes, tttTypes]) expect(Object.keys(gameDefinitions)).toContain(g.kind);
    expect(tttTypes.json).toBe(true);
    expect(fpsTypes.schema?.hash).toBeGreaterThan(0);
  });

  it("encode inputs with their schemas' declarations, which the rooms read back", () => {
    const w = new BinaryWriter(32);
    // Values on the stick's 1/127 steps (and whole ms, 1/65536 turns) come back exactly.
    expect(readInput(agarInputs, agarTypes.encodeInput({ dx: 64 / 127, dy: -1, boost: true }, w))).toEqual({ dx: 64 / 127, dy: -1, boost: true });
    expect(readInput(movementInputs, movementTypes.encodeInput({ dx: 1, dy: 0, sprint: false }, w))).toEqual({ dx: 1, dy: 0, sprint: false });
    expect(readInput(fpsInputs, fpsTypes.encodeInput({ kind: "shot", time: 1234.5, aim: 0 }, w))).toEqual({ kind: "shot", time: 1234.5, aim: 0 });
    expect(readInput(fpsInputs, fpsTypes.encodeInput({ kind: "move", dx: 1, dy: 0, dtMs: 16, aim: Math.PI }, w))).toEqual({ kind: "move", dx: 1, dy: 0, dtMs: 16, aim: Math.PI });
    expect(agarTypes.schema?.inputs).toBe(agarInputs);
    expect(tttTypes.encodeInput({ cell: 4 }, w)).toEqual({ cell: 4 });
  });

  it("decode fps events from the schema's declaration, and refuse what does not decode", () => {
    const kill = writeEvent(new FrameWriter(16), fpsEvents, { kind: "kill", killer: 3, victim: 4 }).toBytes();
    expect(fpsTypes.decodeEvent(kill)).toEqual({ kind: "kill", killer: 3, victim: 4 });
    // Thrown, so the connection drops a stream that disagrees with the schema it was promised.
    expect(() => fpsTypes.decodeEvent(new Uint8Array([250]))).toThrow(/event_kind 250/);
  });

  it("carry each game's types", () => {
    expectTypeOf<InputOf<typeof agarTypes>>().toEqualTypeOf<AgarInput>();
    expectTypeOf<StateOf<typeof agarTypes>>().toEqualTypeOf<ClientView<(typeof agarSchema)["decl"]>>();
    expectTypeOf<InputOf<typeof fpsTypes>>().toEqualTypeOf<FpsInput>();
    expectTypeOf<EventOf<typeof fpsTypes>>().toEqualTypeOf<FpsEvent>();
    expectTypeOf<StateOf<typeof tttTypes>>().toEqualTypeOf<TttView>();
    expectTypeOf<InputOf<typeof tttTypes>>().toEqualTypeOf<TttInput>();
    const w = new BinaryWriter(8);
    // @ts-expect-error: agar has no sprint (that is movement's flag)
    agarTypes.encodeInput({ dx: 1, dy: 0, sprint: true }, w);
    // A shot needs its time: a type error, and at run time the declaration refuses it.
    // @ts-expect-error: a shot needs its time
    expect(() => fpsTypes.encodeInput({ kind: "shot", aim: 0 }, w)).toThrow("input shot.time: undefined is not a finite number");
  });
});
