/**
 * `drift`, a small game for the room's sleep tests (room/roomSleep.ts): each player's dot glides
 * toward the x its last input named (a few units a tick, so it moves for a while with no input),
 * a static lamp is flipped by an input at once or by a timer of the game's own, and far dots are
 * refreshed by a slower tier. `still()` says exactly when a tick without inputs changes nothing;
 * made with `sleepy: false` the game has no `still` (a room running it never sleeps: the twin).
 */
import { BinaryWriter, Kind, PROTOCOL_VERSION, defineSchema, encodeHello, encodeInputs, encodeLeave, quant, reject, varuint, type EntityRecord, type InputRejection } from "@tikron/protocol";
import { FakeClock, Room, type Game, type GameContext, type Player, type RoomOptions } from "../../src";
import { SyncWorld } from "../../src/sync";
import { FakeConnection } from "../fakes";

const driftSchema = defineSchema({
  dot: { x: quant(0, 1000, 1 / 8), y: quant(0, 1000, 1 / 8) },
  lamp: { x: quant(0, 1000, 1 / 8), y: quant(0, 1000, 1 / 8), on: varuint() },
});

/** Units a dot glides per tick. */
export const DRIFT_STEP = 7;

/** An input byte: 0–199 a target x of 5× it; 200–209 the lamp flips that many × 30 ms later; 210 flips it now. */
export type DriftInput = number;

interface Dot {
  entity: number;
  rec: EntityRecord<(typeof driftSchema.decl)["dot"]>;
  target: number;
}

export class DriftGame implements Game<DriftInput> {
  readonly kind = "drift";
  readonly ticking = true;
  readonly world = new SyncWorld(driftSchema, {
    tiers: [
      { radius: 300, every: 1 },
      { radius: 1200, every: 3 },
    ],
  });
  readonly sync = { mode: "binary" as const, encoder: this.world.encoder };
  readonly dots = new Map<number, Dot>();
  readonly lamp = { x: 500, y: 500, on: 0 };
  readonly lampEntity: number;
  /** Room time the lamp flips at (its timer), or Infinity. */
  flipAt = Infinity;
  readonly still?: () => boolean;
  ctx!: GameContext;

  constructor(sleepy: boolean) {
    this.lampEntity = this.world.spawn("lamp", this.lamp, { static: true });
    if (sleepy) this.still = () => this.flipAt === Infinity && [...this.dots.values()].every((d) => d.rec.x === d.target);
  }

  init(ctx: GameContext): void {
    this.ctx = ctx;
  }

  join({ playerId }: Player): void {
    // Spread out along y, so some dots are far from others (the slower tier).
    const rec = { x: 500, y: (playerId * 173) % 1000 };
    const entity = this.world.spawn("dot", rec);
    this.dots.set(playerId, { entity, rec, target: rec.x });
    this.world.viewer(playerId).follow(entity);
  }

  leave(playerId: number): void {
    const d = this.dots.get(playerId);
    if (!d) return;
    this.world.despawn(d.entity);
    this.world.removeViewer(playerId);
    this.dots.delete(playerId);
  }

  decodeInput(payload: unknown): DriftInput | InputRejection {
    const p = payload as Uint8Array;
    if (!(p instanceof Uint8Array) || p.length !== 1 || p[0]! > 210) return reject("bad_input", "one byte 0..210");
    return p[0]!;
  }

  applyInput(playerId: number, n: DriftInput, receivedAt: number): void {
    const d = this.dots.get(playerId);
    if (!d) return;
    if (n < 200) d.target = n * 5;
    else if (n < 210) this.flipAt = Math.min(this.flipAt, receivedAt + (n - 199) * 30);
    else this.flip();
  }

  tick(now: number): void {
    for (const d of this.dots.values()) {
      const dx = d.target - d.rec.x;
      if (dx !== 0) d.rec.x += Math.sign(dx) * Math.min(Math.abs(dx), DRIFT_STEP);
    }
    if (now >= this.flipAt) {
      this.flipAt = Infinity;
      this.flip();
    }
  }

  /** What a client could see of the world, for comparing two rooms. */
  view(): string {
    const dots = [...this.dots.entries()].map(([id, d]) => `${id}:${d.rec.x},${d.rec.y}`);
    return `${dots.join(" ")} lamp ${this.lamp.on}`;
  }

  private flip(): void {
    this.lamp.on ^= 1;
    this.world.touched(this.lampEntity);
  }
}

const w = new BinaryWriter();

/** One drift room on its own fake clock, with raw sockets that keep what they are sent. */
export class DriftRoom {
  readonly clock = new FakeClock(0);
  readonly game: DriftGame;
  readonly room: Room;
  readonly conns: FakeConnection[] = [];
  readonly ids: number[] = [];
  readonly seqs: number[] = [];
  /** The game's world at each periodic checkpoint the room asked its host for. */
  readonly kept: string[] = [];

  constructor(sleepy: boolean, options: Partial<RoomOptions> = {}) {
    this.game = new DriftGame(sleepy);
    this.room = new Room({
      kind: "drift",
      roomId: "r",
      game: this.game,
      clock: this.clock,
      hooks: { onCheckpointDue: (urgent) => void (urgent || this.kept.push(this.game.view())) },
      // Raw sockets send no receipts and the scripts send inputs in bursts: no stream gate, no budget.
      options: { tickMs: 50, syncIntervalMs: 50, maxUnreceiptedMessages: 1e9, msgRatePerSec: 1e6, msgBurst: 1e6, joinRatePerSec: 1e6, joinBurst: 1e6, ...options },
    });
  }

  /** A new player (index into `conns`). */
  join(): number {
    const conn = new FakeConnection();
    const id = this.room.open(conn);
    this.room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: `p${this.conns.length}` }).toBytes());
    this.conns.push(conn);
    this.ids.push(id);
    this.seqs.push(0);
    return this.conns.length - 1;
  }

  input(i: number, n: number): void {
    if (this.conns[i]!.closedWith) return;
    this.room.message(this.ids[i]!, encodeInputs(w.reset(), [{ seq: ++this.seqs[i]!, payload: new Uint8Array([n]) }]).toBytes());
  }

  leave(i: number): void {
    if (this.conns[i]!.closedWith) return;
    this.room.message(this.ids[i]!, encodeLeave(w.reset()).toBytes());
  }

  /** The socket drops (its seat is held for the reconnection window). */
  drop(i: number): void {
    const conn = this.conns[i]!;
    if (conn.closedWith) return;
    conn.close(1006, "dropped");
    this.room.closed(this.ids[i]!, 1006);
  }

  /** The FRAMEs player `i` got, as sent (bytes). */
  frames(i: number): Uint8Array[] {
    return this.conns[i]!.sent.filter((d): d is Uint8Array => typeof d !== "string" && d[0] === Kind.Frame);
  }

  get sleep() {
    return this.room.snapshot().sleep;
  }
}
