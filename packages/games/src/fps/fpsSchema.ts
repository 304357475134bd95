import { defineEvents, defineSchema, map, quant, quantAngle, string, u8, varuint, type DeclaredEvent } from "@tikron/protocol";
import { fpsInputs } from "./fpsInput";

/** Largest fps world edge the schema (and the tracer event format) can carry. */
export const FPS_MAX_WORLD = 4096;

/**
 * A point of a tracer: 1/16 unit (the schema's position step) up to one step short of
 * {@link FPS_MAX_WORLD}, so the 65 536 levels travel as two bytes each.
 */
const tracerPoint = quant(0, FPS_MAX_WORLD - 1 / 16, 1 / 16);

/**
 * The `fps` events. `tracer`: a shot's visible line, from the shooter to where the ray stopped
 * (a hit, the range, or the arena wall), sent only to players whose AOI circle the segment
 * touches; `hit` is the player id hit, 0 for a miss. `kill`: to everyone (the kill feed). A
 * tracer is typically 11–13 bytes, a kill 3–5.
 */
export const fpsEvents = defineEvents({
  tracer: { shooter: varuint(), hit: varuint(), x0: tracerPoint, y0: tracerPoint, x1: tracerPoint, y1: tracerPoint },
  kill: { killer: varuint(), victim: varuint() },
});

/** An fps event as the room emits it and a client reads it. */
export type FpsEvent = DeclaredEvent<typeof fpsEvents.decl>;
/** A shot's tracer (see {@link fpsEvents}). */
export type FpsTracerEvent = Extract<FpsEvent, { kind: "tracer" }>;
/** A kill (see {@link fpsEvents}). */
export type FpsKillEvent = Extract<FpsEvent, { kind: "kill" }>;

/**
 * The `fps` entity schema, its events and its declared inputs ({@link fpsInputs}), shared by
 * the room (encode, read inputs), the client SDK and the load tool (decode, write inputs).
 *
 * - `player`: `pid` links the entity to the player id (scoreboard keys, tracer events);
 *   positions to 1/16 unit; facing in 10 bits (~0.35°); `hp` 0 means dead (waiting to respawn).
 * - `scoreboard`: one global entity (no position, so every client holds it); kills and deaths
 *   by player id. A kill changes one key of each map and only those keys go on the wire.
 */
export const fpsSchema = defineSchema(
  {
    player: {
      pid: varuint(),
      x: quant(0, FPS_MAX_WORLD, 1 / 16),
      y: quant(0, FPS_MAX_WORLD, 1 / 16),
      angle: quantAngle(10),
      hp: u8(),
      name: string(16),
    },
    scoreboard: {
      kills: map(varuint(), 1024),
      deaths: map(varuint(), 1024),
    },
  },
  { events: fpsEvents, inputs: fpsInputs },
);
