import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PendingRequests, RequestError } from "../src/pendingRequests";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("PendingRequests", () => {
  it("routes each answer to its request by id and ignores unknown ids", async () => {
    const pending = new PendingRequests();
    const sent: number[] = [];
    const a = pending.request(1000, "a", (id) => sent.push(id));
    const b = pending.request(1000, "b", (id) => sent.push(id));
    expect(sent).toEqual([1, 2]);
    pending.settle(99, "nobody asked");
    pending.settle(2, "for b");
    pending.settle(1, "for a");
    pending.settle(1, "again"); // settled already: ignored
    await expect(a).resolves.toBe("for a");
    await expect(b).resolves.toBe("for b");
  });

  it("fails a request with the error it is settled with", async () => {
    const pending = new PendingRequests();
    const a = pending.request(1000, "a", () => {});
    pending.settle(1, "ignored", new RequestError("illegal_move", "not your turn"));
    await expect(a).rejects.toMatchObject({ name: "RequestError", code: "illegal_move", message: "not your turn" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("times a request out on its own, and a late answer changes nothing", async () => {
    const pending = new PendingRequests();
    const slow = pending.request(100, "stats request", () => {});
    const check = expect(slow).rejects.toMatchObject({ code: "timeout", message: "stats request timed out after 100 ms" });
    vi.advanceTimersByTime(100);
    await check;
    pending.settle(1, "late");
  });

  it("rejects with what send threw, and nothing waits for it", async () => {
    const pending = new PendingRequests();
    const bad = pending.request(100, "a", () => {
      throw new TypeError("not JSON-able");
    });
    await expect(bad).rejects.toThrow(TypeError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects everything still open when the connection ends, and clears their timers", async () => {
    const pending = new PendingRequests();
    const a = pending.request(100, "a", () => {});
    const b = pending.request(100, "b", () => {});
    const check = expect(Promise.allSettled([a, b])).resolves.toEqual([
      { status: "rejected", reason: new Error("closed") },
      { status: "rejected", reason: new Error("closed") },
    ]);
    pending.rejectAll(new Error("closed"));
    await check;
    expect(vi.getTimerCount()).toBe(0);
  });
});
