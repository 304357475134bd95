import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PendingRequests, Waiters } from "../src/pendingRequests";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("PendingRequests", () => {
  it("routes each answer to its request by id and ignores unknown ids", async () => {
    const pending = new PendingRequests<string>();
    const sent: number[] = [];
    const a = pending.request(1000, (id) => sent.push(id), "a");
    const b = pending.request(1000, (id) => sent.push(id), "b");
    expect(sent).toEqual([1, 2]);
    pending.resolve(99, "nobody asked");
    pending.resolve(2, "for b");
    pending.resolve(1, "for a");
    pending.resolve(1, "again"); // settled already: ignored
    await expect(a).resolves.toBe("for a");
    await expect(b).resolves.toBe("for b");
  });

  it("times a request out on its own, and a late answer changes nothing", async () => {
    const pending = new PendingRequests<string>();
    const slow = pending.request(100, () => {}, "stats request");
    const check = expect(slow).rejects.toThrow("stats request timed out");
    vi.advanceTimersByTime(100);
    await check;
    pending.resolve(1, "late");
  });

  it("rejects everything still open when the connection ends, and clears their timers", async () => {
    const pending = new PendingRequests<string>();
    const a = pending.request(100, () => {}, "a");
    const check = expect(a).rejects.toThrow("closed");
    pending.rejectAll(new Error("closed"));
    await check;
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("Waiters", () => {
  it("settles every waiter once, then starts a fresh list", async () => {
    const w = new Waiters<number>();
    const first = [w.wait(), w.wait()];
    w.resolveAll(1);
    await expect(Promise.all(first)).resolves.toEqual([1, 1]);
    const next = w.wait();
    w.rejectAll(new Error("gone"));
    await expect(next).rejects.toThrow("gone");
    w.resolveAll(2); // nobody left to resolve
  });
});
