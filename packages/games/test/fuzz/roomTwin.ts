/**
 * Twin-room fuzz scenarios: the real decode + room path (core `Room`, real `AgarGame`, fake
 * clock) gets honest players and hostile clients; a twin room with the same seed gets the same
 * honest traffic and none of the garbage. Honest players must see byte-identical streams and an
 * identical world in both rooms, and room invariants must hold after every message.
 *
 * Who is hostile:
 * - outsiders: sockets that never hold a seat (their hello is refused: the room is full, or the
 *   version is wrong). The twin has no outsiders at all.
 * - the insider: a seated player (present in both rooms) sending hostile frames. Frames the wire
 *   decoder accepts are legitimate protocol messages with legitimate effects (e.g. steering its
 *   own cell, leaving) and are mirrored to the twin; everything else reaches only the fuzzed
 *   room. Hostile *values* inside well-formed frames (NaN, huge magnitudes, bad flags, stale
 *   seqs) therefore reach both rooms and are caught by the invariants instead. When the fuzzed
 *   room closes the insider (too many errors, oversized frame), the twin's insider socket drops
 *   at the same instant, which has the same effect on the game (seat held, cell frozen).
 *   Insider frames per scenario stay under the message burst so its rate limit (spent faster in
 *   the fuzzed room) never drops a mirrored frame in one room only.
 */
import fc from "fast-check";
import { BinaryWriter, CloseCode, Kind, PROTOCOL_VERSION, decodeClientMessage, decodeServerMessage, encodeHello, encodeInputs, encodeLeave, encodePing, isDecodeError } from "@tikron/protocol";
import { FakeClock, Room, defaultRoomOptions, type Connection } from "@tikron/core";
import { AgarGame } from "../../src/agar/agarGame";
import { agarInputs } from "../../src/agar/agarInput";
import { AGAR_RULES } from "../../src/agar/agarRules";
import { gameDefinitions } from "../../src/gameDefinitions";
import { hostileFrame, type WireFrame } from "./hostileFrames";

/** A socket that records what the room sends it. */
class RecordingConnection implements Connection {
  readonly sent: WireFrame[] = [];
  closedWith: { code: number; reason: string } | null = null;
  send(data: WireFrame): void {
    // The room lends its writer's bytes for the duration of the call (Connection.send).
    if (!this.closedWith) this.sent.push(typeof data === "string" ? data : (data.slice() as WireFrame));
  }
  close(code: number, reason: string): void {
    this.closedWith ??= { code, reason };
  }
  bufferedAmount(): number {
    return 0;
  }
}

export type Action =
  | { t: "advance"; ms: number }
  | { t: "honestInput"; who: number; angle: number; throttle: number; boost: boolean }
  | { t: "honestPing"; who: number }
  | { t: "insider"; frame: WireFrame }
  | { t: "outsider"; who: number; frame: WireFrame }
  | { t: "outsiderFlood"; who: number; frame: WireFrame; count: number }
  | { t: "outsiderDrop"; who: number; code: number };

export interface Scenario {
  honest: number;
  insider: boolean;
  world: number;
  orbs: number;
  seed: number;
  queueInputs: boolean;
  actions: Action[];
}

/** Insider frames per scenario: below the default message burst (see the module comment). */
export const MAX_INSIDER_FRAMES = Math.floor(defaultRoomOptions.msgBurst * 0.8);

export const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    honest: fc.integer({ min: 1, max: 4 }),
    insider: fc.boolean(),
    world: fc.integer({ min: 300, max: 2000 }),
    orbs: fc.integer({ min: 0, max: 40 }),
    seed: fc.integer({ min: 1, max: 0x7fffffff }),
    queueInputs: fc.boolean(),
    actions: fc.array(
      fc.oneof(
        { weight: 5, arbitrary: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 200, max: 3000 })).map((ms): Action => ({ t: "advance", ms })) },
        {
          weight: 4,
          arbitrary: fc
            .record({ who: fc.nat({ max: 3 }), angle: fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }), throttle: fc.double({ min: 0, max: 1, noNaN: true }), boost: fc.boolean() })
            .map((r): Action => ({ t: "honestInput", ...r })),
        },
        { weight: 1, arbitrary: fc.nat({ max: 3 }).map((who): Action => ({ t: "honestPing", who })) },
        { weight: 6, arbitrary: hostileFrame.map((frame): Action => ({ t: "insider", frame })) },
        { weight: 6, arbitrary: fc.record({ who: fc.nat({ max: 2 }), frame: hostileFrame }).map((r): Action => ({ t: "outsider", ...r })) },
        { weight: 1, arbitrary: fc.record({ who: fc.nat({ max: 2 }), frame: hostileFrame, count: fc.integer({ min: 100, max: 300 }) }).map((r): Action => ({ t: "outsiderFlood", ...r })) },
        { weight: 1, arbitrary: fc.record({ who: fc.nat({ max: 2 }), code: fc.constantFrom(1000, 1001, 1005, 1006, 4000, 4999) }).map((r): Action => ({ t: "outsiderDrop", ...r })) },
      ),
      { maxLength: 60 },
    ),
  })
  .map((s) => {
    let insiderFrames = 0;
    const actions = s.actions.filter((a) => a.t !== "insider" || ++insiderFrames <= MAX_INSIDER_FRAMES);
    return { ...s, actions };
  });

interface Side {
  clock: FakeClock;
  game: AgarGame;
  room: Room;
  honest: { conn: RecordingConnection; id: number; playerId: number; seq: number }[];
  insider: { conn: RecordingConnection; id: number; playerId: number } | null;
}

const w = new BinaryWriter(256);

/** Closes after which the room frees the seat instead of holding it (see Room.closeLink). */
const ABUSE_CLOSE_CODES: ReadonlySet<number> = new Set([CloseCode.rate_limited, CloseCode.too_many_errors, CloseCode.frame_too_large]);
const payloadWriter = new BinaryWriter(16);

function welcomeOf(conn: RecordingConnection): number {
  const first = conn.sent[0];
  if (!(first instanceof Uint8Array)) throw new Error("no welcome");
  const m = decodeServerMessage(first);
  if (isDecodeError(m) || m.kind !== "welcome") throw new Error(`expected a welcome, got ${isDecodeError(m) ? m.message : m.kind}`);
  return m.playerId;
}

function build(s: Scenario): Side {
  const clock = new FakeClock();
  const game = new AgarGame({ world: s.world, orbs: s.orbs, seed: s.seed });
  const cap = s.honest + (s.insider ? 1 : 0);
  const room = new Room({ kind: "agar", roomId: "fuzz", game, clock, options: { ...gameDefinitions.agar!.defaults, cap, queueInputs: s.queueInputs } });
  const join = (name: string) => {
    const conn = new RecordingConnection();
    const id = room.open(conn);
    room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name }).toBytes());
    return { conn, id, playerId: welcomeOf(conn) };
  };
  const honest = Array.from({ length: s.honest }, (_, i) => ({ ...join(`h${i}`), seq: 0 }));
  const insider = s.insider ? join("insider") : null;
  return { clock, game, room, honest, insider };
}

/** Thrown with a description of the broken invariant (fast-check shrinks on it). */
export class InvariantError extends Error {}

function check(cond: boolean, what: string): void {
  if (!cond) throw new InvariantError(what);
}

function checkInvariants(side: Side, s: Scenario, scores: Map<number, number>): void {
  const { room, game } = side;
  const cap = s.honest + (s.insider ? 1 : 0);
  check(room.seatCount <= cap, `seats ${room.seatCount} > cap ${cap}`);
  check(room.connectedCount <= room.seatCount, `connected ${room.connectedCount} > seats ${room.seatCount}`);
  for (let id = 1; id <= cap + 2; id++) {
    const c = game.cellOf(id);
    if (!c) {
      scores.delete(id);
      continue;
    }
    check(Number.isFinite(c.x) && Number.isFinite(c.y) && Number.isFinite(c.r), `player ${id} has a non-finite cell ${JSON.stringify(c)}`);
    check(c.r >= AGAR_RULES.startRadius && c.r <= AGAR_RULES.maxRadius, `player ${id} radius ${c.r} out of range`);
    check(c.x >= 0 && c.x <= s.world && c.y >= 0 && c.y <= s.world, `player ${id} at (${c.x}, ${c.y}) outside the ${s.world} world`);
    check(Number.isInteger(c.score) && c.score >= 0, `player ${id} score ${c.score}`);
    check(c.score >= (scores.get(id) ?? 0), `player ${id} score went down`);
    scores.set(id, c.score);
  }
  for (const h of side.honest) check(h.conn.closedWith === null, `honest player ${h.playerId} was closed: ${JSON.stringify(h.conn.closedWith)}`);
  check(side.room.stats.errors.internal === undefined, "a handler threw (counted as internal)");
}

/** Byte-identical streams, except the welcome's reconnect token (random per room). */
function sameFrames(a: WireFrame[], b: WireFrame[]): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  const wa = decodeServerMessage(a[0] as Uint8Array);
  const wb = decodeServerMessage(b[0] as Uint8Array);
  if (isDecodeError(wa) || isDecodeError(wb) || wa.kind !== "welcome" || wb.kind !== "welcome") return false;
  if (JSON.stringify({ ...wa, token: "" }) !== JSON.stringify({ ...wb, token: "" })) return false;
  for (let i = 1; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (typeof x === "string" || typeof y === "string") {
      if (x !== y) return false;
      continue;
    }
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/** A valid-version hello from an outsider would seat it while a seat is free: make it wrong. */
function keepOutsiderOut(frame: WireFrame, room: Room, cap: number): WireFrame {
  if (typeof frame === "string" || room.seatCount >= cap || frame[0] !== Kind.Hello) return frame;
  const m = decodeClientMessage(frame);
  if (isDecodeError(m) || m.kind !== "hello" || m.version !== PROTOCOL_VERSION) return frame;
  const out = frame.slice();
  out[1] = (PROTOCOL_VERSION + 1) & 0xff;
  out[2] = (PROTOCOL_VERSION + 1) >> 8;
  return out;
}

/** Runs one scenario; throws {@link InvariantError} (or any escaped exception) on failure. */
export function runTwinScenario(s: Scenario): { framesToHonest: number } {
  const fuzzed = build(s);
  const twin = build(s);
  const cap = s.honest + (s.insider ? 1 : 0);
  const scores = new Map<number, number>();
  const outsiders = new Map<number, { conn: RecordingConnection; id: number }>();
  let twinInsiderDropped = false;
  const outsider = (who: number) => {
    let o = outsiders.get(who);
    if (!o || o.conn.closedWith) {
      const conn = new RecordingConnection();
      o = { conn, id: fuzzed.room.open(conn) };
      outsiders.set(who, o);
    }
    return o;
  };

  for (const a of s.actions) {
    switch (a.t) {
      case "advance":
        fuzzed.clock.advance(a.ms);
        twin.clock.advance(a.ms);
        break;
      case "honestInput":
      case "honestPing": {
        const i = a.who % s.honest;
        for (const side of [fuzzed, twin]) {
          const h = side.honest[i]!;
          let frame: Uint8Array;
          if (a.t === "honestPing") {
            frame = encodePing(w.reset(), side.clock.now()).toBytes();
          } else {
            const payload = agarInputs.encode({ dx: a.throttle * Math.cos(a.angle), dy: a.throttle * Math.sin(a.angle), boost: a.boost }, payloadWriter);
            frame = encodeInputs(w.reset(), [{ seq: ++h.seq, payload }]).toBytes();
          }
          side.room.message(h.id, frame);
        }
        break;
      }
      case "insider": {
        if (!fuzzed.insider || !twin.insider) break;
        fuzzed.room.message(fuzzed.insider.id, a.frame);
        const wellFormed = typeof a.frame !== "string" && !isDecodeError(decodeClientMessage(a.frame));
        if (wellFormed) twin.room.message(twin.insider.id, a.frame);
        break;
      }
      case "outsider": {
        const o = outsider(a.who);
        fuzzed.room.message(o.id, keepOutsiderOut(a.frame, fuzzed.room, cap));
        break;
      }
      case "outsiderFlood": {
        const o = outsider(a.who);
        for (let k = 0; k < a.count && !o.conn.closedWith; k++) fuzzed.room.message(o.id, keepOutsiderOut(a.frame, fuzzed.room, cap));
        break;
      }
      case "outsiderDrop": {
        const o = outsiders.get(a.who);
        if (o && !o.conn.closedWith) {
          fuzzed.room.closed(o.id, a.code);
          outsiders.delete(a.who);
        }
        break;
      }
    }
    if (fuzzed.insider && twin.insider && fuzzed.insider.conn.closedWith && !twin.insider.conn.closedWith && !twinInsiderDropped) {
      // The fuzzed room kicked the insider; a normal close (leave) was mirrored already. A kick
      // for abuse frees the seat at once (as a leave does); any other close holds it.
      twinInsiderDropped = true;
      if (ABUSE_CLOSE_CODES.has(fuzzed.insider.conn.closedWith.code)) twin.room.message(twin.insider.id, encodeLeave(w.reset()).toBytes());
      else twin.room.closed(twin.insider.id, 1006);
    }
    checkInvariants(fuzzed, s, scores);
  }

  // Let the last inputs be applied and flushed in both rooms.
  const settle = 2 * (gameDefinitions.agar!.defaults.tickMs ?? 50);
  fuzzed.clock.advance(settle);
  twin.clock.advance(settle);
  checkInvariants(fuzzed, s, scores);

  let framesToHonest = 0;
  for (let i = 0; i < s.honest; i++) {
    const a = fuzzed.honest[i]!.conn;
    const b = twin.honest[i]!.conn;
    check(sameFrames(a.sent, b.sent), `honest player ${i} received a different stream than in the twin room (${a.sent.length} vs ${b.sent.length} messages)`);
    for (const m of a.sent) {
      check(m instanceof Uint8Array, "honest player got a text frame");
      const decoded = decodeServerMessage(m as Uint8Array);
      check(!isDecodeError(decoded), "honest player got an undecodable frame");
      if (!isDecodeError(decoded)) check(decoded.kind !== "error", `honest player got an error: ${JSON.stringify(decoded)}`);
    }
    framesToHonest += a.sent.length;
  }
  for (let id = 1; id <= cap + 2; id++) {
    check(JSON.stringify(fuzzed.game.cellOf(id)) === JSON.stringify(twin.game.cellOf(id)), `player ${id}'s cell differs from the twin room`);
  }
  const world = fuzzed.game.world;
  check(world.size === twin.game.world.size, "entity counts differ from the twin room");
  for (let id = 0; id < world.capacity; id++) {
    const type = world.typeOfEntity(id);
    if (type !== twin.game.world.typeOfEntity(id)) throw new InvariantError(`entity ${id} type differs from the twin room`);
    if (type === "orb") {
      const orb = world.record(id, "orb")!;
      check(orb.x >= 0 && orb.x <= s.world && orb.y >= 0 && orb.y <= s.world, `orb ${id} outside the world`);
      check(JSON.stringify(orb) === JSON.stringify(twin.game.world.record(id, "orb")), `orb ${id} differs from the twin room`);
    }
  }

  // tk:stats must add up: every received input was processed or rejected once the queue drained.
  const snap = fuzzed.room.snapshot();
  check(snap.inputs.received === snap.inputs.processed + snap.inputs.rejected, `inputs ${JSON.stringify(snap.inputs)} do not add up`);
  for (const group of [snap.errors, snap.closes, snap.refused, snap.inputs.rejectedByCode]) {
    for (const [k, v] of Object.entries(group)) check(Number.isInteger(v) && v > 0, `counter ${k}=${v}`);
  }
  return { framesToHonest };
}
