import { describe, expect, it } from "vitest";
import { relayObjectName, roomObjectName, SocketPort } from "../src/relayLink";
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

  it("names a room's object and its relays apart", () => {
    expect(roomObjectName("agar", "r1")).toBe("agar:r1");
    expect(relayObjectName("agar", "r1", 0)).not.toBe(roomObjectName("agar", "r1"));
  });

  it("a room's object answers a join of a relayed room with its relay count, which the gateway reads and nothing else matches", () => {
    const answer = relayedAnswer(3);
    expect(readRelayedAnswer(answer)).toBe(3);
    expect(readRelayedAnswer(new Response("nope", { status: 409 }))).toBe(0);
    expect(readRelayedAnswer(new Response("x", { status: 421 }))).toBe(0);
    expect(readRelayedAnswer(new Response("x", { status: 421, headers: { [ROOM_RELAYED_HEADER]: "0" } }))).toBe(0);
  });
});
