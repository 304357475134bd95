import type { Rng } from "../rng";
import type { Scenario, WelcomeInfo } from "./scenario";
import { randomHeading, wander, type Heading } from "./steering";

/** fps input kinds (first payload byte). */
export const FpsInput = { Move: 1, Shot: 2 } as const;
/** fps event kinds (first event byte). */
export const FpsEvent = { Tracer: 1, Kill: 2 } as const;

/** Move: u8 kind=1, f32 dx, f32 dy, u8 dtMs, u16 aim (1/65536 turn). */
export const FPS_MOVE_BYTES = 12;
/** Shot: u8 kind=2, f64 room time (ms), u16 aim (1/65536 turn). */
export const FPS_SHOT_BYTES = 11;

/** The room refuses a move claiming a longer step than this (its maxStepMs rule). */
const MAX_STEP_MS = 100;
/** One shot in place of every 15th move: 2 shots/s at 30 Hz, well under the room's 8/s. */
const SHOT_EVERY = 15;
/** Shots are stamped with the room time the shooter saw: server time minus interpolation delay. */
const INTERP_DELAY_MS = 100;
const TAU = 2 * Math.PI;

/** An angle as 1/65536 turns, wrapped. */
function aimToWire(a: number): number {
  let t = a / TAU;
  t -= Math.floor(t);
  return Math.round(t * 65536) & 0xffff;
}

/** Writes a move at `offset`; returns 12. */
export function encodeFpsMove(out: DataView, offset: number, dx: number, dy: number, dtMs: number, aim: number): number {
  out.setUint8(offset, FpsInput.Move);
  out.setFloat32(offset + 1, dx, true);
  out.setFloat32(offset + 5, dy, true);
  out.setUint8(offset + 9, dtMs);
  out.setUint16(offset + 10, aimToWire(aim), true);
  return FPS_MOVE_BYTES;
}

/** Writes a shot at `offset`; returns 11. */
export function encodeFpsShot(out: DataView, offset: number, roomTimeMs: number, aim: number): number {
  out.setUint8(offset, FpsInput.Shot);
  out.setFloat64(offset + 1, roomTimeMs, true);
  out.setUint16(offset + 9, aimToWire(aim), true);
  return FPS_SHOT_BYTES;
}

interface FpsPlayer {
  heading: Heading;
  stepMs: number;
  n: number;
  playerId: number;
  /** Local epoch ms + this = room time (ms). */
  roomTimeOffset: number;
}

function varuintAt(buf: Uint8Array, at: number, end: number): number {
  let v = 0;
  let shift = 0;
  for (let i = at; i < end && shift < 35; i++) {
    const b = buf[i];
    v |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return v >>> 0;
    shift += 7;
  }
  return -1;
}

/**
 * Shooter: wanders at full stick, aims where it walks, and fires every 15th input, stamped with
 * the room time it would have seen. Counts the shot events (tracers, kills) delivered to it.
 */
export const fpsScenario: Scenario<FpsPlayer> = {
  name: "fps",
  roomKind: "fps",
  defaultRate: 30,
  maxPayloadBytes: FPS_MOVE_BYTES,
  counters: ["shots_sent", "tracers_received", "own_tracers_received", "kills_received"],
  createPlayer: (rng: Rng, periodMs: number) => ({
    heading: randomHeading(rng),
    stepMs: Math.max(0, Math.min(MAX_STEP_MS, Math.round(periodMs))),
    n: Math.floor(rng.next() * SHOT_EVERY),
    playerId: -1,
    roomTimeOffset: 0,
  }),
  onWelcome(p: FpsPlayer, info: WelcomeInfo): void {
    p.playerId = info.playerId;
    p.roomTimeOffset = info.clockOffsetMs - info.roomEpoch;
  },
  writeInput(p: FpsPlayer, rng: Rng, out: DataView, offset: number, counters: Record<string, number>): number {
    wander(p.heading, rng);
    if (++p.n % SHOT_EVERY === 0) {
      counters.shots_sent = (counters.shots_sent ?? 0) + 1;
      const roomTime = Math.max(0, Date.now() + p.roomTimeOffset - INTERP_DELAY_MS);
      return encodeFpsShot(out, offset, roomTime, p.heading.angle);
    }
    const a = p.heading.angle;
    return encodeFpsMove(out, offset, Math.cos(a), Math.sin(a), p.stepMs, a);
  },
  onEvent(p: FpsPlayer, buf: Uint8Array, offset: number, length: number, counters: Record<string, number>): void {
    if (length < 1) return;
    const kind = buf[offset];
    if (kind === FpsEvent.Tracer) {
      counters.tracers_received = (counters.tracers_received ?? 0) + 1;
      if (varuintAt(buf, offset + 1, offset + length) === p.playerId) {
        counters.own_tracers_received = (counters.own_tracers_received ?? 0) + 1;
      }
    } else if (kind === FpsEvent.Kill) {
      counters.kills_received = (counters.kills_received ?? 0) + 1;
    }
  },
};
