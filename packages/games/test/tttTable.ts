/**
 * A ttt-json table for tests: a room made from the game's definition by the harness (with the
 * room options a test gives: id, host env, a kept store), xena seated as X and otto as O, and a
 * `play` that makes one move and lets the room's microtask flush (and deferred work) settle.
 */
import { TestRoom, type TestClient, type TestRoomOptions } from "@tikron/core/testing";
import { gameDefinitions } from "../src/gameDefinitions";
import { tttTypes, type TttInput } from "../src/schemas";

/** One player at a ttt-json table. */
export type TttPlayer = TestClient<typeof tttTypes>;

/** A ttt-json room in memory (see the module comment). */
export const tttRoom = (options?: TestRoomOptions) => new TestRoom(gameDefinitions["ttt-json"]!, tttTypes, options);

/** The room with xena (X) and otto (O) seated, and `play(player, input)`. */
export async function tttTable(options?: TestRoomOptions) {
  const t = tttRoom(options);
  const x = t.join("xena");
  const o = t.join("otto");
  await t.settle();
  /** One move, then the room's flush (turn-based rooms flush on a microtask). */
  const play = async (c: TttPlayer, input: TttInput) => {
    c.input(input);
    await t.settle();
  };
  return { t, x, o, play };
}
