import { defineSchema, map, quant, quantAngle, string, u8, varuint } from "@tikron/protocol";

/** Largest fps world edge the schema (and the tracer event format) can carry. */
export const FPS_MAX_WORLD = 4096;

/**
 * The `fps` entity schema, shared by the room (encode), the client SDK and the load tool
 * (decode).
 *
 * - `player`: `pid` links the entity to the player id (scoreboard keys, tracer events);
 *   positions to 1/16 unit; facing in 10 bits (~0.35°); `hp` 0 means dead (waiting to respawn).
 * - `scoreboard`: one global entity (no position, so every client holds it); kills and deaths
 *   by player id. A kill changes one key of each map and only those keys go on the wire.
 */
export const fpsSchema = defineSchema({
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
});
