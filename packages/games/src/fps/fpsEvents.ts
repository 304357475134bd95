import { BinaryReader, type BinaryWriter, DecodeError } from "@tikron/protocol";

/** First byte of an fps event body (FRAME events section). */
export const FpsEventKind = {
  Tracer: 1,
  Kill: 2,
} as const;

/**
 * A shot's visible line, from the shooter to where the ray stopped (a hit, the range, or the
 * arena wall). Sent only to clients whose AOI circle the segment touches.
 */
export interface FpsTracerEvent {
  kind: "tracer";
  /** Player id of the shooter. */
  shooter: number;
  /** Player id that was hit, or 0 for a miss. */
  hit: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A kill, sent to every client (kill feed). */
export interface FpsKillEvent {
  kind: "kill";
  killer: number;
  victim: number;
}

export type FpsEvent = FpsTracerEvent | FpsKillEvent;

/**
 * Tracer coordinates travel as u16 in steps of 1/16 unit (the schema's position step), which
 * covers the whole `FPS_MAX_WORLD` edge of 4096 units.
 */
export const FPS_EVENT_POSITION_STEP = 1 / 16;
const POS_SCALE = 16;
const POS_MAX = 0xffff;

/**
 * Encodes a tracer: `u8 1 | varuint shooter | varuint hit (0 = miss) | u16 x0 | u16 y0 |
 * u16 x1 | u16 y1`, coordinates in 1/16 units (clamped to the world the schema can carry).
 * Typically 11-13 bytes. Returns a fresh copy: events are held until the next flush.
 */
export function encodeFpsTracer(w: BinaryWriter, e: Omit<FpsTracerEvent, "kind">): Uint8Array {
  return w
    .reset()
    .u8(FpsEventKind.Tracer)
    .varuint(e.shooter)
    .varuint(e.hit)
    .u16(posToWire(e.x0))
    .u16(posToWire(e.y0))
    .u16(posToWire(e.x1))
    .u16(posToWire(e.y1))
    .toBytes();
}

/** Encodes a kill: `u8 2 | varuint killer | varuint victim`. */
export function encodeFpsKill(w: BinaryWriter, e: Omit<FpsKillEvent, "kind">): Uint8Array {
  return w.reset().u8(FpsEventKind.Kill).varuint(e.killer).varuint(e.victim).toBytes();
}

/** Decodes one fps event body (client side). Never throws. */
export function decodeFpsEvent(bytes: Uint8Array): FpsEvent | DecodeError {
  try {
    const r = new BinaryReader(bytes);
    const kind = r.u8();
    let e: FpsEvent;
    if (kind === FpsEventKind.Tracer) {
      e = {
        kind: "tracer",
        shooter: r.varuint(),
        hit: r.varuint(),
        x0: r.u16() / POS_SCALE,
        y0: r.u16() / POS_SCALE,
        x1: r.u16() / POS_SCALE,
        y1: r.u16() / POS_SCALE,
      };
    } else if (kind === FpsEventKind.Kill) {
      e = { kind: "kill", killer: r.varuint(), victim: r.varuint() };
    } else {
      throw new DecodeError("unknown_kind", `unknown fps event kind ${kind}`);
    }
    r.expectEnd();
    return e;
  } catch (err) {
    return err instanceof DecodeError ? err : new DecodeError("bad_value", String(err));
  }
}

function posToWire(v: number): number {
  const q = Math.round(v * POS_SCALE);
  return q > 0 ? (q < POS_MAX ? q : POS_MAX) : 0;
}
