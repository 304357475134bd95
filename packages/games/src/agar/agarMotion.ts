import { stickScale } from "../stick";
import { AGAR_RULES, speedFor } from "./agarRules";

/**
 * The agar movement rule, in one place: the room's tick and the client's prediction both call
 * {@link stepAgarCell}, so a prediction fed the inputs the room applied lands where the room
 * put the cell. Imports nothing but the rule tables, so clients can bundle it (it is exported by
 * `@tikron/games/schemas`) without pulling in room code.
 */

/** The part of a cell that movement changes. */
export interface AgarCellState {
  x: number;
  y: number;
  r: number;
}

/** Steering as the room holds it after decoding (each axis −1..1, the step bounds the length to 1) and the boost flag. */
export interface AgarSteer {
  readonly dx: number;
  readonly dy: number;
  readonly boost: boolean;
}

/**
 * Advances a cell by `dtMs` of steering: the stick scaled to a length of at most 1
 * (`stickScale`), speed by radius, boost (only above the start radius) burns mass, walls clamp
 * the centre one radius inside a `world`-sized arena. Eating is not part of it: that needs the
 * other entities, and only the room knows them.
 *
 * Writes into `out` and returns it. `out` may be `state` itself (the room steps its synced
 * record in place, allocating nothing per tick); the prediction passes a fresh object, since the
 * state it steps from may be the decoder's live record.
 */
export function stepAgarCell<T extends AgarCellState>(state: Readonly<AgarCellState>, input: AgarSteer, dtMs: number, world: number, out: T): T {
  const dt = dtMs / 1000;
  const r = state.r;
  const boosting = input.boost && r > AGAR_RULES.startRadius;
  const v = speedFor(r, boosting) * dt * stickScale(input.dx, input.dy);
  // Read everything before writing: `out` may alias `state`.
  const x = clamp(state.x + input.dx * v, r, world - r);
  const y = clamp(state.y + input.dy * v, r, world - r);
  out.x = x;
  out.y = y;
  out.r = boosting ? Math.max(AGAR_RULES.startRadius, r - AGAR_RULES.boostBurn * dt) : r;
  return out;
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}
