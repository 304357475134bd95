import { describe, expect, it } from "vitest";
import { parseRoomRelays, relayIndexFor, relayObjectName, relaysFor, roomObjectName, SocketPort } from "../src/relayLink";

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

  it("reads ROOM_RELAYS as kind=K pairs and refuses what is not one", () => {
    expect([...parseRoomRelays(" agar=3, fps = 2,,")]).toEqual([
      ["agar", 3],
      ["fps", 2],
    ]);
    expect(parseRoomRelays("").size).toBe(0);
    for (const bad of ["agar", "agar=x", "agar=17", "agar=-1", "a b=1", "agar=1.5"]) expect(() => parseRoomRelays(bad), bad).toThrow(RangeError);
    expect(() => parseRoomRelays("agar=1,agar=2")).toThrow(/twice/);
  });

  it("a room's relays: the join's override, else ROOM_RELAYS for its kind, else its definition's default", () => {
    const plain = { kind: "agar", defaults: {}, create: () => null as never };
    const big = { kind: "agar", defaults: { relays: 4 }, create: () => null as never };
    expect(relaysFor("agar", plain, {}, undefined)).toBe(0);
    expect(relaysFor("agar", big, undefined, undefined)).toBe(4);
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3" }, undefined)).toBe(3);
    expect(relaysFor("agar", big, { ROOM_RELAYS: "agar=0" }, undefined)).toBe(0);
    expect(relaysFor("fps", plain, { ROOM_RELAYS: "agar=3" }, undefined)).toBe(0);
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3" }, 1)).toBe(1);
  });
});
