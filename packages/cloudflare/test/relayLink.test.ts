import { describe, expect, it, vi } from "vitest";
import { relayIndexFor, relayObjectName, roomObjectName, RpcPort } from "../src/relayLink";

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("the link between a relayed room's objects", () => {
  it("RpcPort sends a copy of each message, in order, one call each", async () => {
    const got: number[][] = [];
    const port = new RpcPort(async (data) => (got.push([...data]), true), "test");
    const reused = new Uint8Array([1, 2]);
    port.send(reused);
    reused[0] = 9; // the sender's writer is reused at once
    port.send(reused.subarray(0, 1));
    await settle();
    expect(got).toEqual([[1, 2], [9]]);
  });

  it("a peer that answers false no longer knows the link: lost is heard once and nothing more is sent", async () => {
    let calls = 0;
    const lost = vi.fn();
    const port = new RpcPort(async () => (calls++, false), "test", lost);
    port.send(new Uint8Array([1]));
    port.send(new Uint8Array([2])); // already on its way when the first answer comes
    await settle();
    expect(lost).toHaveBeenCalledTimes(1);
    expect(port.isLost).toBe(true);
    port.send(new Uint8Array([3]));
    await settle();
    expect(calls).toBe(2);
  });

  it("a call that fails is counted, and the link goes on", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    let n = 0;
    const port = new RpcPort(async () => {
      if (n++ === 0) throw new Error("object reset");
      return true;
    }, "test");
    port.send(new Uint8Array([1]));
    port.send(new Uint8Array([2]));
    await settle();
    expect(port.failures).toBe(1);
    expect(port.isLost).toBe(false);
    expect(n).toBe(2);
    errors.mockRestore();
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
});
