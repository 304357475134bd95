/**
 * A restarted room is made with what it was made with (core roomMadeWith.ts): a matchmaker's
 * 8-seat room kept the way the Cloudflare host keeps it (core `KeptRoom`: the overrides written
 * with the first seat's record) comes back with its cap, not the kind's default, and refuses the
 * seat past it; what is kept is read by the join URL's own rule; a kept room never takes the
 * overrides of the join that wakes it. And a checkpoint the same as the last one written is not
 * written again.
 */
import { CloseCode, defineGameTypes, jsonDialect } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { KEPT_MADE_WITH_KEY, KeptRoom, makingFor, readRoomMadeWith, roomMadeWith, type Game, type GameContext, type GameDefinition, type Player, type RoomHooks } from "../src";
import { TestRoom } from "../src/testing";

const types = defineGameTypes<{ n: number }, never, { n: number }>()({ kind: "probe", json: jsonDialect });

/** A turn-based game whose state is a count of moves. */
class CountGame implements Game {
  readonly kind = "probe";
  readonly ticking = false;
  readonly sync = { mode: "json" as const, source: { viewFor: () => ({ n: this.moves }) } };
  moves = 0;
  private ctx!: GameContext;
  init(ctx: GameContext): void {
    this.ctx = ctx;
  }
  join(_player: Player): void {}
  leave(): void {}
  decodeInput(payload: unknown): { n: number } {
    return payload as { n: number };
  }
  applyInput(_id: number, input: { n: number }): void {
    if (input.n > 0) {
      this.moves += input.n;
      this.ctx.markChanged();
    }
  }
  tick(): void {}
  checkpoint(): unknown {
    return { moves: this.moves };
  }
  restore(state: unknown): void {
    this.moves = (state as { moves: number }).moves;
  }
}

/** The kind's default cap is 20 (as agar's); a matchmaker makes its rooms with `cap=8`. */
const definition: GameDefinition = { kind: "probe", defaults: { cap: 20 }, create: () => new CountGame() };

/** A host's storage as the Cloudflare host keeps a room (roomKeeping.ts): key → JSON text, every write counted. */
function keptHost(making: { options: Record<string, unknown>; params: Record<string, unknown> }) {
  const kept = new KeptRoom();
  kept.madeWith(roomMadeWith(making));
  const data = new Map<string, string>();
  const written: string[] = [];
  const apply = (w: { key: string; value: string | null } | null): void => {
    if (!w) return;
    written.push(w.key);
    if (w.value === null) data.delete(w.key);
    else data.set(w.key, w.value);
  };
  const hooks: RoomHooks = {
    onSeatRecord: (id, rec) => {
      apply(kept.seat(id, rec));
      if (rec) apply(kept.madeWithWrite());
    },
  };
  return { kept, data, written, hooks, piece: (room: TestRoom<typeof types>) => apply(kept.piece(room.room.checkpoint(kept.world))) };
}

describe("a restarted room keeps what it was made with", () => {
  it("a matchmaker's 8-seat room comes back from its kept seats and pieces with cap 8 and refuses a 9th seat", () => {
    const making = { options: { cap: 8 }, params: {} };
    const host = keptHost(making);
    const first = new TestRoom(definition, types, { roomId: "m1", overrides: making.options, hooks: host.hooks });
    const a = first.join("a");
    first.join("b");
    host.piece(first);
    expect(first.room.status().maxClients).toBe(8);
    // Written once, with the first seat's record; not again with the second nor with the piece.
    expect(host.written.filter((k) => k === KEPT_MADE_WITH_KEY)).toHaveLength(1);
    expect(host.written.indexOf(KEPT_MADE_WITH_KEY)).toBe(host.written.indexOf("room:seat:" + a.playerId) + 1);

    // The restart: storage read back; the join that wakes the room (a reconnect) carries no overrides.
    const saved = new KeptRoom().read(new Map(host.data));
    expect(saved?.madeWith).toEqual({ options: { cap: 8 }, params: {} });
    const remade = makingFor(saved!, { options: {}, params: {} });
    expect(remade).toEqual({ options: { cap: 8 }, params: {} });
    const second = new TestRoom(definition, types, { roomId: "m1", overrides: remade.options });
    expect(second.room.restoreCheckpoint(saved!)).toBe(true);
    expect(second.room.status()).toMatchObject({ maxClients: 8, clients: 2 });
    expect(second.stats()).toMatchObject({ restoredSeats: 2 });

    // Two seats held for their players, six more taken, the ninth refused as full.
    const fresh = Array.from({ length: 6 }, (_, i) => second.join(`n${i}`));
    for (const c of fresh) expect(c.welcome).toBeDefined();
    const ninth = second.join("ninth");
    expect(ninth.welcome).toBeUndefined();
    expect(ninth.closed?.code).toBe(CloseCode.room_full);
  });

  it("without the kept overrides the same room would come back with the kind's default cap (what the restart did before)", () => {
    const host = keptHost({ options: { cap: 8 }, params: {} });
    const first = new TestRoom(definition, types, { roomId: "m2", overrides: { cap: 8 }, hooks: host.hooks });
    first.join("a");
    host.data.delete(KEPT_MADE_WITH_KEY);
    const saved = new KeptRoom().read(new Map(host.data))!;
    expect(saved.madeWith).toBeUndefined();
    // A kept room without a record of its making is made with no overrides, not the waking join's.
    expect(makingFor(saved, { options: { cap: 3 }, params: {} })).toEqual({ options: {}, params: {} });
    const second = new TestRoom(definition, types, { roomId: "m2", overrides: makingFor(saved, { options: {}, params: {} }).options });
    expect(second.room.status().maxClients).toBe(20);
  });

  it("a room made anew takes the creating request's overrides; bots are not kept; nothing is kept without overrides", () => {
    expect(makingFor(undefined, { options: { cap: 3 }, params: { world: 500 } })).toEqual({ options: { cap: 3 }, params: { world: 500 } });
    expect(roomMadeWith({ options: { cap: 8, bots: 4 }, params: { world: 500 } })).toEqual({ options: { cap: 8 }, params: { world: 500 } });
    expect(roomMadeWith({ options: { bots: 4 }, params: {} })).toBeUndefined();
    expect(roomMadeWith({ options: {}, params: {} })).toBeUndefined();
    // No overrides: no key written, and one kept from an earlier room under this id is removed.
    const kept = new KeptRoom();
    kept.read(new Map([[KEPT_MADE_WITH_KEY, JSON.stringify({ options: { cap: 8 }, params: {} })]]));
    kept.madeWith(undefined);
    expect(kept.madeWithWrite()).toEqual({ key: KEPT_MADE_WITH_KEY, value: null });
    expect(kept.madeWithWrite()).toBeNull();
  });

  it("a kept value is read by the join URL's rule: out of range, unknown keys or the wrong shape are refused whole", () => {
    expect(readRoomMadeWith({ options: { cap: 8, queueInputs: true }, params: { world: 2000, aoi: 300 } })).toEqual({ options: { cap: 8, queueInputs: true }, params: { world: 2000, aoi: 300 } });
    expect(readRoomMadeWith({ options: { cap: 5000 }, params: {} })).toBeNull();
    expect(readRoomMadeWith({ options: { cap: 8, evil: 1 }, params: {} })).toBeNull();
    expect(readRoomMadeWith({ options: { cap: 8 } })).toBeNull();
    expect(readRoomMadeWith([1])).toBeNull();
    expect(readRoomMadeWith("cap=8")).toBeNull();
    // A kept room whose record does not read comes back with the kind's defaults.
    const saved = new KeptRoom().read(new Map([["room:seat:1", JSON.stringify({ playerId: 1, token: "t".repeat(32), name: "a", json: true, lastSeq: 0 })], [KEPT_MADE_WITH_KEY, "{not json"]]));
    expect(saved?.madeWith).toBeUndefined();
    expect(makingFor({ ...saved, madeWith: { options: { cap: -1 }, params: {} } }, { options: { cap: 3 }, params: {} })).toEqual({ options: {}, params: {} });
  });

  it("clearing a room removes what it was made with too", () => {
    const host = keptHost({ options: { cap: 8 }, params: {} });
    const room = new TestRoom(definition, types, { roomId: "m3", overrides: { cap: 8 }, hooks: host.hooks });
    room.join("a");
    host.piece(room);
    expect(host.kept.clear().map((w) => w.key)).toContain(KEPT_MADE_WITH_KEY);
  });
});

describe("a checkpoint that holds nothing new is not written again", () => {
  it("a game kept whole: the same seats, seqs and state write nothing; a move writes again", () => {
    const host = keptHost({ options: {}, params: {} });
    const room = new TestRoom(definition, types, { roomId: "w1", hooks: host.hooks });
    const a = room.join("a");
    host.piece(room);
    const pieces = () => host.written.filter((k) => k.startsWith("room:cp:")).length;
    expect(pieces()).toBe(1);
    host.piece(room);
    host.piece(room);
    expect(pieces()).toBe(1);
    expect(host.kept.unchanged).toBe(2);
    a.input({ n: 2 });
    host.piece(room);
    expect(pieces()).toBe(2);
    // What is kept reads back as the room is.
    const saved = new KeptRoom().read(new Map(host.data))!;
    expect(saved.game).toEqual({ moves: 2 });
    expect(saved.seats[0]!.lastSeq).toBe(1);
    // A lost write: the next checkpoint is written whatever it holds.
    host.kept.lost();
    host.piece(room);
    expect(pieces()).toBe(3);
  });

  it("compares with what was written, not with state the game handed out and goes on changing", () => {
    /** A game whose checkpoint is its own live state object. */
    class LiveStateGame extends CountGame {
      readonly state = { moves: 0 };
      override applyInput(id: number, input: { n: number }): void {
        super.applyInput(id, input);
        this.state.moves = this.moves;
      }
      override checkpoint(): unknown {
        return this.state;
      }
    }
    const live: GameDefinition = { kind: "probe", defaults: {}, create: () => new LiveStateGame() };
    const host = keptHost({ options: {}, params: {} });
    const room = new TestRoom(live, types, { roomId: "w2", hooks: host.hooks });
    room.join("a");
    host.piece(room);
    // The state changes in place, no seat's seq with it (the same object the last piece held).
    (room.game as LiveStateGame).state.moves = 5;
    host.piece(room);
    expect(host.written.filter((k) => k.startsWith("room:cp:"))).toHaveLength(2);
    expect(new KeptRoom().read(new Map(host.data))!.game).toEqual({ moves: 5 });
  });
});
