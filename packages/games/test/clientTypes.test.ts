/**
 * The built-in games' client declarations: their codecs agree with the rooms' decoders, and
 * their types are the games' own (the `@ts-expect-error` lines are checked by the typecheck).
 */
import { BinaryWriter, ClientView, FrameWriter, isRejection, writeEvent, type InputOf, type StateOf, type EventOf } from "@tikron/protocol";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  agarSchema,
  agarTypes,
  decodeAgarInput,
  decodeFpsInput,
  decodeMovementInput,
  fpsEvents,
  fpsTypes,
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

  it("encode inputs the rooms decode back unchanged", () => {
    const w = new BinaryWriter(32);
    expect(decodeAgarInput(agarTypes.encodeInput({ dx: 0.5, dy: -0.25, boost: true }, w))).toEqual({ dx: 0.5, dy: -0.25, boost: true });
    expect(decodeMovementInput(movementTypes.encodeInput({ dx: 1, dy: 0, sprint: false }, w))).toEqual({ dx: 1, dy: 0, sprint: false });
    const shot = decodeFpsInput(fpsTypes.encodeInput({ kind: "shot", time: 1234.5, aim: 1 }, w));
    expect(isRejection(shot) ? shot : shot.kind).toBe("shot");
    const move = decodeFpsInput(fpsTypes.encodeInput({ kind: "move", dx: 1, dy: 0, dtMs: 16, aim: 0 }, w));
    expect(isRejection(move) ? move : move.kind).toBe("move");
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
    // @ts-expect-error: a shot needs its time
    fpsTypes.encodeInput({ kind: "shot", aim: 0 }, w);
  });
});
