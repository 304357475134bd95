import { describe, expect, it } from "vitest";
import { parseRoomRelays, promotionDue, relayedFromStart, relayIndexFor, relayObjectName, relaysFor, roomObjectName, SocketPort } from "../src/relayLink";
import { readRelayedAnswer, relayedAnswer, ROOM_RELAYED_HEADER } from "../src/roomRequest";

describe("the link between a relayed room's objects", () => {
  it("SocketPort sends each message as one socket message, in order; a send on a closed socket is counted, not thrown", () => {
    const sent: number[][] = [];
    let open = true;
    const ws = {
      send(data: Uint8Array) {
        if (!open) throw new Error("WebSocket closed");
        sent.push([...data]);
      },
      close() {
        open = false;
      },
    } as unknown as WebSocket;
    const port = new SocketPort(ws);
    port.send(new Uint8Array([1, 2]));
    port.send(new Uint8Array([3]));
    expect(sent).toEqual([[1, 2], [3]]);
    port.close();
    port.send(new Uint8Array([4]));
    expect(port.failures).toBe(1);
    expect(sent).toHaveLength(2);
  });

  it("names a room's object and its relays apart, and spreads identities over the relays, the same way every time", () => {
    expect(roomObjectName("agar", "r1")).toBe("agar:r1");
    expect(relayObjectName("agar", "r1", 0)).not.toBe(roomObjectName("agar", "r1"));
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 400; i++) {
      const k = relayIndexFor(`player-${i}`, 4);
      expect(relayIndexFor(`player-${i}`, 4)).toBe(k);
      counts[k]!++;
    }
    // Each relay gets a fair share (a hash, so not exactly a quarter).
    for (const c of counts) expect(c).toBeGreaterThan(60);
    expect(relayIndexFor("anyone", 1)).toBe(0);
  });

  it("reads ROOM_RELAYS as kind=K or kind=K@N pairs and refuses what is not one", () => {
    expect([...parseRoomRelays(" agar=3, fps = 2,,")]).toEqual([
      ["agar", { relays: 3, at: 0 }],
      ["fps", { relays: 2, at: 0 }],
    ]);
    expect([...parseRoomRelays("agar=3@150, fps=2 @ 40,ttt=0")]).toEqual([
      ["agar", { relays: 3, at: 150 }],
      ["fps", { relays: 2, at: 40 }],
      ["ttt", { relays: 0, at: 0 }],
    ]);
    expect(parseRoomRelays("").size).toBe(0);
    for (const bad of ["agar", "agar=x", "agar=17", "agar=-1", "a b=1", "agar=1.5", "agar=3@", "agar=3@x", "agar=3@1001", "agar=0@10", "agar=@10", "agar=3@-1"]) {
      expect(() => parseRoomRelays(bad), bad).toThrow(RangeError);
    }
    expect(() => parseRoomRelays("agar=1,agar=2@5")).toThrow(/twice/);
  });

  it("a room's relays: the join's overrides, else ROOM_RELAYS for its kind, else its definition's defaults", () => {
    const plain = { kind: "agar", defaults: {}, create: () => null as never };
    const big = { kind: "agar", defaults: { relays: 4 }, create: () => null as never };
    const grows = { kind: "agar", defaults: { relays: 2, relayAt: 100 }, create: () => null as never };
    expect(relaysFor("agar", plain, {}, undefined)).toEqual({ relays: 0, at: 0 });
    expect(relaysFor("agar", big, undefined, undefined)).toEqual({ relays: 4, at: 0 });
    expect(relaysFor("agar", grows, undefined, {})).toEqual({ relays: 2, at: 100 });
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3" }, undefined)).toEqual({ relays: 3, at: 0 });
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3@150" }, undefined)).toEqual({ relays: 3, at: 150 });
    expect(relaysFor("agar", grows, { ROOM_RELAYS: "agar=3" }, undefined)).toEqual({ relays: 3, at: 0 });
    expect(relaysFor("agar", big, { ROOM_RELAYS: "agar=0" }, undefined)).toEqual({ relays: 0, at: 0 });
    expect(relaysFor("fps", plain, { ROOM_RELAYS: "agar=3" }, undefined)).toEqual({ relays: 0, at: 0 });
    // A `relays` override alone: relayed from the start, as it always meant.
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3@150" }, { relays: 1 })).toEqual({ relays: 1, at: 0 });
    // `relayAt` alone keeps the deployment's K; both: the join's.
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3@150" }, { relayAt: 4 })).toEqual({ relays: 3, at: 4 });
    expect(relaysFor("agar", plain, {}, { relays: 2, relayAt: 4 })).toEqual({ relays: 2, at: 4 });
    // A threshold for a room that is never relayed means nothing.
    expect(relaysFor("agar", plain, {}, { relayAt: 4 })).toEqual({ relays: 0, at: 0 });
  });

  it("a room is relayed from its start only without a threshold, and promoted once its seats reach it", () => {
    expect(relayedFromStart({ relays: 3, at: 0 })).toBe(true);
    expect(relayedFromStart({ relays: 3, at: 150 })).toBe(false);
    expect(relayedFromStart({ relays: 0, at: 0 })).toBe(false);
    const plan = { relays: 2, at: 4 };
    expect(promotionDue(plan, false, 3)).toBe(false);
    expect(promotionDue(plan, false, 4)).toBe(true);
    expect(promotionDue(plan, false, 9)).toBe(true);
    // Relayed already (promoted, or from the start): never again, and never back.
    expect(promotionDue(plan, true, 9)).toBe(false);
    expect(promotionDue({ relays: 2, at: 0 }, false, 100)).toBe(false);
    expect(promotionDue({ relays: 0, at: 0 }, false, 100)).toBe(false);
  });

  it("a room's object answers a join of a relayed room with its relay count, which the gateway reads and nothing else matches", () => {
    const answer = relayedAnswer(3);
    expect(readRelayedAnswer(answer)).toBe(3);
    expect(readRelayedAnswer(new Response("nope", { status: 409 }))).toBe(0);
    expect(readRelayedAnswer(new Response("x", { status: 421 }))).toBe(0);
    expect(readRelayedAnswer(new Response("x", { status: 421, headers: { [ROOM_RELAYED_HEADER]: "0" } }))).toBe(0);
  });
});
