import { BinaryReader, decodeServerMessage, isDecodeError, type ServerMessage } from "@tikron/protocol";
import type { Connection, Game, GameContext, InputRejection, Player, StateEncoder } from "../src";
import { reject } from "../src";

/** In-memory socket that records everything the room sends. */
export class FakeConnection implements Connection {
  sent: (Uint8Array | string)[] = [];
  closedWith: { code: number; reason: string } | null = null;
  buffered = 0;
  send(data: Uint8Array | string): void {
    if (this.closedWith) return;
    // The room lends its writer's bytes for the duration of the call (Connection.send).
    this.sent.push(typeof data === "string" ? data : data.slice());
  }
  close(code: number, reason: string): void {
    this.closedWith ??= { code, reason };
  }
  bufferedAmount(): number {
    return this.buffered;
  }
  /** Decoded binary messages received so far. */
  messages(): ServerMessage[] {
    return this.sent.filter((d): d is Uint8Array => typeof d !== "string").map((d) => {
      const m = decodeServerMessage(d);
      if (isDecodeError(m)) throw m;
      return m;
    });
  }
  frames() {
    return this.messages().filter((m) => m.kind === "frame");
  }
  json(): any[] {
    return this.sent.filter((d): d is string => typeof d === "string").map((s) => JSON.parse(s));
  }
}

/**
 * Encoder for tests: every client gets a 4-byte "world version" whenever it changed since that
 * client's last frame. Enough to observe the flush cadence and the no-change → no-frame rule.
 */
export class VersionEncoder implements StateEncoder<{ seen: number }> {
  readonly schemaHash = 0xabcd;
  version = 0;
  flushes = 0;
  createClient(): { seen: number } {
    return { seen: -1 };
  }
  releaseClient(): void {}
  beginFlush(): void {
    this.flushes++;
  }
  encodeClient(state: { seen: number }, w: import("@tikron/protocol").BinaryWriter): boolean {
    if (state.seen === this.version) return false;
    state.seen = this.version;
    w.u32(this.version);
    return true;
  }
}

export function deltaVersion(delta: Uint8Array): number {
  return new BinaryReader(delta).u32();
}

/** A counter game: an input is one byte `n` (1..100) added to the player's total. */
export class CounterGame implements Game<number> {
  readonly kind = "counter";
  readonly encoder = new VersionEncoder();
  readonly sync = { mode: "binary" as const, encoder: this.encoder };
  readonly ticking = true;
  totals = new Map<number, number>();
  applied: { playerId: number; n: number; receivedAt: number }[] = [];
  ticks: number[] = [];
  events: string[] = [];
  ctx!: GameContext;
  init(ctx: GameContext): void {
    this.ctx = ctx;
  }
  join({ playerId }: Player): void {
    this.totals.set(playerId, 0);
    this.events.push(`join:${playerId}`);
    this.encoder.version++;
  }
  disconnected(playerId: number): void {
    this.events.push(`disconnected:${playerId}`);
  }
  reconnected({ playerId }: Player): void {
    this.events.push(`reconnected:${playerId}`);
  }
  leave(playerId: number): void {
    this.totals.delete(playerId);
    this.events.push(`leave:${playerId}`);
    this.encoder.version++;
  }
  decodeInput(payload: unknown): number | InputRejection {
    const p = payload as Uint8Array;
    if (!(p instanceof Uint8Array) || p.length !== 1) return reject("bad_input", "one byte expected");
    if (p[0]! < 1 || p[0]! > 100) return reject("bad_input", "n outside 1..100");
    return p[0]!;
  }
  applyInput(playerId: number, n: number, receivedAt: number): void | InputRejection {
    if (n === 99) return reject("illegal_move", "99 is forbidden");
    this.applied.push({ playerId, n, receivedAt });
    this.totals.set(playerId, (this.totals.get(playerId) ?? 0) + n);
    this.encoder.version++;
  }
  tick(now: number): void {
    this.ticks.push(now);
  }
}
