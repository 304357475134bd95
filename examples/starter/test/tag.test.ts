/**
 * The game tested the way the room runs it, in Node and without Cloudflare: a core `Room` on a
 * fake clock, players on in-memory connections, and what they receive decoded with the same
 * schema the page uses.
 */
import { FakeClock, Room, type Connection } from "@tikron/core";
import { BinaryWriter, ClientView, ErrorCode, PROTOCOL_VERSION, decodeServerMessage, encodeHello, encodeInputs, encodeRoomMessage, isDecodeError, type ReplyMessage } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { TagGame } from "../src/server/tagGame";
import { TAG_RULES, checkChat, decodeTagEvent, decodeTagInput, encodeTagInput, tagSchema, type TagEvent } from "../src/shared/tag";

/** An in-memory socket: the room writes into `sent`; the player decodes it. */
class Player implements Connection {
  readonly sent: Uint8Array[] = [];
  readonly view = new ClientView(tagSchema);
  readonly replies: ReplyMessage[] = [];
  readonly chats: Extract<TagEvent, { kind: "chat" }>[] = [];
  entity = -1;
  private read = 0;
  send(data: Uint8Array | string): void {
    // The room lends its writer's bytes for the duration of send: keep a copy.
    if (typeof data !== "string") this.sent.push(data.slice());
  }
  close(): void {}
  bufferedAmount(): number {
    return 0;
  }
  /** Decodes what arrived since the last call into the view and the entity id. */
  receive(): void {
    for (; this.read < this.sent.length; this.read++) {
      const m = decodeServerMessage(this.sent[this.read]!);
      if (isDecodeError(m)) throw m;
      if (m.kind === "reply") this.replies.push(m);
      if (m.kind !== "frame") continue;
      for (const body of m.events) {
        const ev = decodeTagEvent(body);
        if (ev?.kind === "youAre") this.entity = ev.entity;
        if (ev?.kind === "chat") this.chats.push(ev);
      }
      if (m.body) {
        const err = this.view.apply(m.body);
        if (err) throw err;
      }
    }
  }
  me() {
    return this.view.get(this.entity)?.record as { x: number; y: number; it: boolean; tags: number; name: string } | undefined;
  }
}

const w = new BinaryWriter(64);

function join(room: Room, name: string): { player: Player; connId: number } {
  const player = new Player();
  const connId = room.open(player);
  room.message(connId, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name }).toBytes());
  return { player, connId };
}

describe("tag input", () => {
  it("round-trips every direction and refuses anything else", () => {
    for (const dx of [-1, 0, 1] as const) {
      for (const dy of [-1, 0, 1] as const) expect(decodeTagInput(encodeTagInput(w, { dx, dy }))).toEqual({ dx, dy });
    }
    for (const bad of [new Uint8Array([3]), new Uint8Array([0x10]), new Uint8Array([5, 5]), new Uint8Array(0), "left"]) {
      expect(decodeTagInput(bad)).toMatchObject({ rejected: true, code: "bad_input" });
    }
  });
});

describe("a tag room", () => {
  it("moves players by their inputs and passes 'it' on a touch", () => {
    const clock = new FakeClock();
    const game = new TagGame();
    const room = new Room({ kind: "tag", roomId: "t1", game, clock, options: { tickMs: 50, syncIntervalMs: 50 } });
    const ann = join(room, "ann");
    const bob = join(room, "bob");
    clock.advance(100);
    ann.player.receive();
    bob.player.receive();
    expect(ann.player.view.size).toBe(2);
    expect(ann.player.me()).toMatchObject({ name: "ann", it: true }); // the first player is "it"
    expect(bob.player.me()).toMatchObject({ name: "bob", it: false });

    // Bob walks right for one second.
    const x0 = bob.player.me()!.x;
    const right = encodeTagInput(new BinaryWriter(8), { dx: 1, dy: 0 }).slice();
    room.message(bob.connId, encodeInputs(w.reset(), [{ seq: 1, payload: right }]).toBytes());
    clock.advance(1000);
    bob.player.receive();
    const walked = Math.min(TAG_RULES.world - TAG_RULES.tagRadius / 2, x0 + TAG_RULES.speed) - x0;
    expect(bob.player.me()!.x - x0).toBeCloseTo(walked, 0);

    // Put bob next to ann: the next tick she tags him.
    const annRec = game.world.record(ann.player.entity, "player")!;
    const bobRec = game.world.record(bob.player.entity, "player")!;
    room.message(bob.connId, encodeInputs(w.reset(), [{ seq: 2, payload: encodeTagInput(new BinaryWriter(8), { dx: 0, dy: 0 }).slice() }]).toBytes());
    clock.advance(50);
    bobRec.x = annRec.x + TAG_RULES.tagRadius / 2;
    bobRec.y = annRec.y;
    clock.advance(100);
    ann.player.receive();
    expect(ann.player.me()).toMatchObject({ it: false, tags: 1 });
    expect(ann.player.view.get(bob.player.entity)?.record).toMatchObject({ it: true });
    expect(room.snapshot().game).toMatchObject({ tags: 1 });
  });
});

describe("tag chat (a room message)", () => {
  it("validates a line: trimmed, 1-120 characters, a string", () => {
    expect(checkChat({ text: "  hi  " })).toEqual({ text: "hi" });
    for (const bad of [null, 5, "hi", {}, { text: 5 }, { text: "   " }, { text: "x".repeat(121) }]) {
      expect(checkChat(bad)).toMatchObject({ rejected: true, code: "bad_message" });
    }
  });

  it("says a line to everyone and answers how many heard it; a bad line is refused to its sender only", () => {
    const clock = new FakeClock();
    const room = new Room({ kind: "tag", roomId: "t2", game: new TagGame(), clock, options: { tickMs: 50, syncIntervalMs: 50 } });
    const ann = join(room, "ann");
    const bob = join(room, "bob");
    room.message(ann.connId, encodeRoomMessage(w.reset(), 1, "chat", JSON.stringify({ text: "tag me" })).toBytes());
    room.message(ann.connId, encodeRoomMessage(w.reset(), 2, "chat", JSON.stringify({ text: "" })).toBytes());
    clock.advance(50);
    ann.player.receive();
    bob.player.receive();
    expect(ann.player.replies.map((r) => [r.requestId, r.code, r.value])).toEqual([
      [1, 0, { heardBy: 2 }],
      [2, ErrorCode.bad_message, undefined],
    ]);
    expect(bob.player.chats).toEqual([{ kind: "chat", from: "ann", text: "tag me" }]);
    expect(ann.player.chats).toEqual(bob.player.chats);
    expect(room.snapshot().game).toMatchObject({ chats: 1 });
    expect(room.snapshot().gameMessages).toMatchObject({ received: 2, handled: 1, refused: 1 });
  });
});
