/**
 * The Player record in a seat's own durable record (what a host that keeps each seat apart
 * writes: room/checkpoint.ts `seatRecord`, core `KeptRoom`): it carries identity, claims and
 * join options; it is read back checked and bounded (`readCheckpointSeat`); a restart from seat
 * records + checkpoint pieces hands the game's `restore` (and `join`, for a seat taken after the
 * last piece) the records as they were; a stored record that does not read is left out and
 * counted, never thrown.
 */
import fc from "fast-check";
import { MAX_JOIN_OPTIONS, defineGameTypes, defineJoinOptions, joinOption, jsonDialect } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { KeptRoom, type CheckpointSeat, type Game, type GameContext, type GameDefinition, type Player, type RoomHooks } from "../src";
import { readCheckpointSeat } from "../src/room/checkpoint";
import { TestRoom } from "../src/testing";

const options = defineJoinOptions({ team: joinOption.oneOf(["red", "blue"]), level: joinOption.int(1, 99, { default: 1 }), skin: joinOption.text(8) });
const types = defineGameTypes<{ n: number }, never, { n: number }>()({ kind: "probe", json: jsonDialect, joinOptions: options });

/** A turn-based game that writes down the records the room hands it. */
class RecordGame implements Game {
  readonly kind = "probe";
  readonly ticking = false;
  readonly sync = { mode: "json" as const, source: { viewFor: () => ({ n: this.joined.length }) } };
  readonly joined: Player[] = [];
  readonly reconnects: Player[] = [];
  readonly left: number[] = [];
  restored: Player[] | null = null;
  private ctx!: GameContext;
  init(ctx: GameContext): void {
    this.ctx = ctx;
  }
  join(player: Player): void {
    this.joined.push(player);
    this.ctx.markChanged();
  }
  reconnected(player: Player): void {
    this.reconnects.push(player);
  }
  leave(playerId: number): void {
    this.left.push(playerId);
  }
  decodeInput(payload: unknown): { n: number } {
    return payload as { n: number };
  }
  applyInput(): void {}
  tick(): void {}
  checkpoint(): unknown {
    return { joined: this.joined.length };
  }
  restore(_state: unknown, players: readonly Player[]): void {
    this.restored = [...players];
  }
}

/** A room of the probe kind; with `host`, its seats are kept the way the Cloudflare host keeps them. */
function probe(host?: ReturnType<typeof keptHost>): { room: TestRoom<typeof types, RecordGame>; game: RecordGame } {
  const game = new RecordGame();
  const definition: GameDefinition = { kind: "probe", defaults: { cap: 8 }, create: () => game, joinOptions: options };
  return { room: new TestRoom(definition, types, host ? { hooks: host.hooks } : {}), game };
}

/** Storage as a host keeps it: key → JSON text. */
function keptHost() {
  const kept = new KeptRoom();
  const data = new Map<string, string>();
  const apply = (w: { key: string; value: string | null } | null) => (w === null ? false : w.value === null ? data.delete(w.key) : data.set(w.key, w.value));
  const hooks: RoomHooks = { onSeatRecord: (id, rec) => void apply(kept.seat(id, rec)) };
  return { kept, data, hooks, piece: (t: TestRoom<typeof types, RecordGame>) => void apply(kept.piece(t.room.checkpoint(kept.world))) };
}

describe("a seat's own record carries its Player", () => {
  it("a restart from seat records and pieces hands restore (and join, for a seat taken after the last piece) the records as they were", () => {
    const host = keptHost();
    const { room, game } = probe(host);
    const ann = room.join("ann", { identity: "jwt:user-1", claims: { name: "Ann B.", roles: ["mod"] }, joinOptions: { team: "red", skin: "fox" } });
    room.join("anon", { joinOptions: { level: 9 } });
    host.piece(room);
    // After the last piece: a third seat, kept by its own record only.
    room.join("cy", { identity: "jwt:user-3", claims: { name: "Cy" }, joinOptions: { team: "blue" } });
    const [annP, anonP, cyP] = game.joined;
    const rec = JSON.parse(host.data.get("room:seat:1")!) as CheckpointSeat;
    expect(rec).toMatchObject({ playerId: 1, name: "ann", identity: "jwt:user-1", player: { claims: { name: "Ann B.", roles: ["mod"] }, options: { team: "red", skin: "fox", level: 1 } } });
    expect(JSON.parse(host.data.get("room:seat:2")!).player).toEqual({ anonymous: anonP!.identity, options: { level: 9 } });

    const cp = new KeptRoom().read(host.data)!;
    const next = probe();
    expect(next.room.room.restoreCheckpoint(cp)).toBe(true);
    expect(next.game.restored).toEqual([annP, anonP]);
    expect(next.game.joined).toEqual([cyP]);
    expect(next.room.stats().errors).not.toHaveProperty("seat_record_refused");
    const back = next.room.join("ann", { identity: "jwt:user-1", token: ann.token });
    expect(back.welcome?.reconnected).toBe(true);
    expect(next.game.reconnects).toEqual([annP]);
  });

  it("a stored record that does not read is left out and counted; the other seats come back, its player leaves the game", () => {
    const host = keptHost();
    const { room, game } = probe(host);
    for (const n of ["ann", "bob", "cy", "dee"]) room.join(n, { identity: `jwt:${n}`, claims: { name: n }, joinOptions: { team: "red" } });
    host.piece(room);
    const bad = (id: number, change: (r: Record<string, any>) => void) => {
      const r = JSON.parse(host.data.get(`room:seat:${id}`)!);
      change(r);
      host.data.set(`room:seat:${id}`, JSON.stringify(r));
    };
    bad(2, (r) => (r.player.claims = { name: "x".repeat(600) })); // past the claims' bound
    bad(3, (r) => (r.player.options = { team: { nested: true } })); // not an option's value
    host.data.set("room:seat:4", "{not json");
    const cp = new KeptRoom().read(host.data)!;
    const next = probe();
    expect(next.room.room.restoreCheckpoint(cp)).toBe(true);
    expect(next.room.stats().errors).toMatchObject({ seat_record_refused: 3 });
    expect(next.game.restored).toEqual([game.joined[0]]);
    expect(next.game.left.sort()).toEqual([2, 3, 4]);
    // Only refused records, nothing else kept: nothing restored, still counted.
    const only = new Map([["room:seat:9", "[]"]]);
    const empty = probe();
    expect(empty.room.room.restoreCheckpoint({ ...new KeptRoom().read(only)!, kind: "probe", roomId: "test" })).toBe(false);
    expect(empty.room.stats().errors).toMatchObject({ seat_record_refused: 1 });
  });
});

describe("readCheckpointSeat", () => {
  const good: CheckpointSeat = { playerId: 3, token: "a".repeat(32), name: "ann", json: true, identity: "jwt:u", player: { claims: { roles: ["mod"] }, options: { team: "red", level: 2, on: true } }, lastSeq: 12 };

  it("reads a record whole and drops fields the shape does not name", () => {
    expect(readCheckpointSeat(JSON.parse(JSON.stringify({ ...good, extra: "x".repeat(10_000) })))).toEqual(good);
    expect(readCheckpointSeat({ playerId: 1, token: "t" })).toEqual({ playerId: 1, token: "t", name: "", json: false, lastSeq: 0 });
  });

  it("refuses a record with any field malformed or past its bound", () => {
    const broken: [string, unknown][] = [
      ["not an object", "seat"],
      ["an array", [good]],
      ["player id 0", { ...good, playerId: 0 }],
      ["empty token", { ...good, token: "" }],
      ["token over 128", { ...good, token: "t".repeat(129) }],
      ["name over 32", { ...good, name: "n".repeat(33) }],
      ["name not a string", { ...good, name: 5 }],
      ["identity with a space", { ...good, identity: "jwt: u" }],
      ["identity over 128", { ...good, identity: "i".repeat(129) }],
      ["player an array", { ...good, player: [] }],
      ["player part it does not name", { ...good, player: { admin: true } }],
      ["anonymous not an anonymous id", { ...good, player: { anonymous: "user-1" } }],
      ["claims over their bound", { ...good, player: { claims: { bio: "b".repeat(600) } } }],
      ["claims not JSON values", { ...good, player: { claims: { n: Infinity } } }],
      ["options not values", { ...good, player: { options: { team: ["red"] } } }],
      ["option name a declaration cannot have", { ...good, player: { options: { "1st": 1 } } }],
      ["option text over its bound", { ...good, player: { options: { skin: "s".repeat(513) } } }],
      ["too many options", { ...good, player: { options: Object.fromEntries(Array.from({ length: MAX_JOIN_OPTIONS + 1 }, (_, i) => [`o${i}`, i])) } }],
    ];
    for (const [why, value] of broken) expect(readCheckpointSeat(value), why).toBeNull();
  });

  it("reads back every record a seat writes, through JSON (property)", () => {
    const optionValue = fc.oneof(fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 40 }));
    const optionName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/);
    const seat = fc.record(
      {
        playerId: fc.integer({ min: 1, max: 1_000_000 }),
        token: fc.stringMatching(/^[0-9a-f]{32}$/),
        name: fc.string({ maxLength: 32 }),
        json: fc.boolean(),
        identity: fc.stringMatching(/^[\x21-\x7e]{1,128}$/),
        player: fc.record(
          {
            claims: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 6 }),
            options: fc.dictionary(optionName, optionValue, { minKeys: 1, maxKeys: MAX_JOIN_OPTIONS }),
          },
          { requiredKeys: [] },
        ),
        lastSeq: fc.nat(),
      },
      { requiredKeys: ["playerId", "token", "name", "json", "lastSeq"] },
    );
    fc.assert(
      fc.property(seat, (s) => {
        // As `seatPlayerOf` writes it: an empty part left out, and the player with it when none is left.
        const { player: p, ...rest } = s;
        const player = { ...(p?.claims && Object.keys(p.claims).length > 0 ? { claims: p.claims } : {}), ...(p?.options ? { options: p.options } : {}) };
        const written: CheckpointSeat = { ...rest, ...(Object.keys(player).length > 0 ? { player } : {}) };
        const read = readCheckpointSeat(JSON.parse(JSON.stringify(written)));
        expect(read).toEqual(JSON.parse(JSON.stringify(written)));
      }),
      { numRuns: 300 },
    );
  });
});
