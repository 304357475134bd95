import { FPS_RULES, fpsEvents, fpsInputs, type FpsMove, type FpsShot } from "@tikron/games/schemas";
import { inputMaxBytes, type BinaryWriter } from "@tikron/protocol";
import type { Rng } from "./rng";
import { defineScenario, type WelcomeInfo } from "./scenario";
import { randomHeading, wander, type Heading } from "./steering";

/** The room refuses a move claiming a longer step than this (its maxStepMs rule). */
const MAX_STEP_MS = FPS_RULES.maxStepMs;
/** One shot in place of every 15th move: 2 shots/s at 30 Hz, well under the room's 8/s. */
const SHOT_EVERY = 15;
/** Shots are stamped with the room time the shooter saw: server time minus interpolation delay. */
const INTERP_DELAY_MS = 100;

/** An event body's first byte: its kind's tag in the fps schema's declared events. */
const tagOf = (name: string): number => fpsEvents.kinds.find((k) => k.name === name)!.index;
const TRACER = tagOf("tracer");
const KILL = tagOf("kill");

interface FpsPlayer {
  heading: Heading;
  stepMs: number;
  n: number;
  playerId: number;
  /** Local epoch ms + this = room time (ms). */
  roomTimeOffset: number;
  /** Rewritten in place for every send (no allocation). */
  move: FpsMove;
  shot: FpsShot;
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
export const fpsScenario = defineScenario<FpsPlayer>({
  name: "fps",
  roomKind: "fps",
  defaultRate: 30,
  maxPayloadBytes: inputMaxBytes(fpsInputs),
  counters: ["shots_sent", "tracers_received", "own_tracers_received", "kills_received"],
  createPlayer: (rng: Rng, periodMs: number) => ({
    heading: randomHeading(rng),
    stepMs: Math.max(0, Math.min(MAX_STEP_MS, Math.round(periodMs))),
    n: Math.floor(rng.next() * SHOT_EVERY),
    playerId: -1,
    roomTimeOffset: 0,
    move: { kind: "move", dx: 1, dy: 0, dtMs: 0, aim: 0 },
    shot: { kind: "shot", time: 0, aim: 0 },
  }),
  onWelcome(p: FpsPlayer, info: WelcomeInfo): void {
    p.playerId = info.playerId;
    p.roomTimeOffset = info.clockOffsetMs - info.roomEpoch;
  },
  writeInput(p: FpsPlayer, rng: Rng, w: BinaryWriter, counters: Record<string, number>): void {
    wander(p.heading, rng);
    const a = p.heading.angle;
    if (++p.n % SHOT_EVERY === 0) {
      counters.shots_sent = (counters.shots_sent ?? 0) + 1;
      p.shot.time = Math.max(0, Date.now() + p.roomTimeOffset - INTERP_DELAY_MS);
      p.shot.aim = a;
      fpsInputs.write(w, p.shot);
      return;
    }
    const m = p.move;
    m.dx = Math.cos(a);
    m.dy = Math.sin(a);
    m.dtMs = p.stepMs;
    m.aim = a;
    fpsInputs.write(w, m);
  },
  onEvent(p: FpsPlayer, buf: Uint8Array, offset: number, length: number, counters: Record<string, number>): void {
    if (length < 1) return;
    const kind = buf[offset];
    if (kind === TRACER) {
      counters.tracers_received = (counters.tracers_received ?? 0) + 1;
      if (varuintAt(buf, offset + 1, offset + length) === p.playerId) {
        counters.own_tracers_received = (counters.own_tracers_received ?? 0) + 1;
      }
    } else if (kind === KILL) {
      counters.kills_received = (counters.kills_received ?? 0) + 1;
    }
  },
});
