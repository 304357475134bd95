/**
 * Type checks only (never run): the tag game's declaration types the SDK, so mistakes fail the
 * build. `npm run build` / `tsc -p tsconfig.test.json` compiles this file, and every
 * `@ts-expect-error` below must be an error or the compile fails.
 */
import { connect, withMessages, type RoomConnection } from "@tikron/client";
import type { StateOf } from "@tikron/protocol";
import { tagGame, type TagEvent, type TagInput, type TagMessages, type TagNotices } from "../src/shared/tag";

/** A connection that never opens (no socket needed to check types). */
export function typedTagRoom(): RoomConnection<StateOf<typeof tagGame>, TagInput, TagEvent, TagMessages, TagNotices> {
  const room = connect("ws://127.0.0.1:8787", { game: tagGame, room: "r1", startClosed: true });

  room.sendInput({ dx: 1, dy: -1 });
  // @ts-expect-error: a direction out of range
  room.sendInput({ dx: 2, dy: 0 });
  // @ts-expect-error: a missing axis
  room.sendInput({ dx: 1 });
  // @ts-expect-error: raw bytes are not a TagInput (the game's codec encodes)
  room.sendInput(new Uint8Array([5]));

  // @ts-expect-error: not an event of a connection
  room.on("youAre", () => {});
  room.on("event", (e) => {
    // @ts-expect-error: the schema's `youAre` event carries an entity, no text
    void e.body.text;
    if (e.body.kind === "youAre") {
      const entity: number = e.body.entity;
      void entity;
    }
    // @ts-expect-error: the tag game has no such event kind
    if (e.body.kind === "tagged") return;
  });

  // Notices are typed by the declaration's TagNotices.
  room.on("notice", (n) => {
    if (n.type === "chat") {
      const line: string = `${n.data.from}: ${n.data.text}`;
      void line;
    }
    // @ts-expect-error: the tag game sends no such notice
    if (n.type === "scores") return;
  });

  // Room messages are typed by the declaration's TagMessages (withMessages gives send and request).
  const talk = withMessages(room);
  // @ts-expect-error: a connection without withMessages has no request
  void room.request("chat", { text: "hi" });
  void talk.request("chat", { text: "hi" }).then((r) => {
    const heardBy: number = r.heardBy;
    // @ts-expect-error: the chat reply has no `delivered`
    void r.delivered;
    void heardBy;
  });
  talk.send("chat", { text: "hi" });
  // @ts-expect-error: the tag game declares no `vote` message
  void talk.request("vote", { text: "hi" });
  // @ts-expect-error: a chat request is { text: string }
  talk.send("chat", { line: "hi" });
  // @ts-expect-error: text must be a string
  void talk.request("chat", { text: 5 });

  room.on("state", (f) => {
    for (const p of f.state.values()) {
      const x: number = p.record.x;
      const it: boolean = p.record.it;
      const name: string = p.record.name;
      // @ts-expect-error: `it` is a boolean, not a number
      const itCount: number = p.record.it;
      // @ts-expect-error: players have no `hp` field
      void p.record.hp;
      void [x, it, name, itCount];
    }
  });
  return room;
}
