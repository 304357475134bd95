import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { WebSocketLike } from "@tikron/client";
import { conditionedWebSocket, MIN_RETRANSMIT_MS, NetConditions, parseNetParam } from "../../src/netConditions";

/** A socket that records what is sent and lets the test play the server's side. */
class FakeSocket implements WebSocketLike {
  static last: FakeSocket;
  binaryType = "blob";
  readyState = 0;
  sent: (string | Uint8Array)[] = [];
  closedWith: number | undefined;
  onopen: ((ev: any) => void) | null = null;
  onmessage: ((ev: any) => void) | null = null;
  onclose: ((ev: any) => void) | null = null;
  onerror: ((ev: any) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.last = this;
  }
  send(data: string | Uint8Array): void {
    this.sent.push(data);
  }
  close(code?: number): void {
    this.closedWith = code;
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(data: string): void {
    this.onmessage?.({ data });
  }
  drop(code: number): void {
    this.readyState = 3;
    this.onclose?.({ code, reason: "" });
  }
}

function setup(net: NetConditions) {
  const Impl = conditionedWebSocket(FakeSocket, net);
  const ws = new Impl("ws://x/rooms/agar/r");
  const inner = FakeSocket.last;
  const got: string[] = [];
  const events: string[] = [];
  ws.onopen = () => events.push("open");
  ws.onmessage = (ev: { data: string }) => got.push(ev.data);
  ws.onclose = (ev: { code: number }) => events.push(`close ${ev.code}`);
  return { ws, inner, got, events };
}

describe("conditionedWebSocket", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("passes everything straight through when conditions are off", () => {
    const { ws, inner, got, events } = setup(new NetConditions("off"));
    ws.binaryType = "arraybuffer";
    expect(inner.binaryType).toBe("arraybuffer");
    inner.open();
    expect(events).toEqual(["open"]);
    expect(ws.readyState).toBe(1);
    ws.send("a");
    expect(inner.sent).toEqual(["a"]);
    inner.receive("b");
    expect(got).toEqual(["b"]);
  });

  it("delays both directions by the profile's one-way delay", () => {
    const { ws, inner, got, events } = setup(new NetConditions({ delayMs: 80, jitterMs: 0, loss: 0 }));
    inner.open();
    expect(events).toEqual([]);
    // Until the open is delivered the application sees a connecting socket and cannot send.
    expect(ws.readyState).toBe(0);
    vi.advanceTimersByTime(80);
    expect(events).toEqual(["open"]);
    ws.send("up");
    inner.receive("down");
    vi.advanceTimersByTime(79);
    expect(inner.sent).toEqual([]);
    expect(got).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(inner.sent).toEqual(["up"]);
    expect(got).toEqual(["down"]);
  });

  it("never reorders under jitter", () => {
    let r = 0;
    const seq = [0.9, 0.1, 0.5, 0.0, 0.7, 0.3];
    const net = new NetConditions({ delayMs: 10, jitterMs: 100, loss: 0 }, () => seq[r++ % seq.length]!);
    const { inner, got } = setup(net);
    inner.onopen?.({});
    for (let i = 0; i < 20; i++) inner.receive(String(i));
    vi.advanceTimersByTime(2000);
    expect(got.slice(-20)).toEqual([...Array(20).keys()].map(String));
  });

  it("models loss as a retransmission stall that holds back later messages", () => {
    // First draw is jitter (none configured, so not drawn), then the loss roll.
    const rolls = [0.0, 0.99];
    let i = 0;
    const net = new NetConditions({ delayMs: 20, jitterMs: 0, loss: 0.5 }, () => rolls[i++ % rolls.length]!);
    expect(net.sampleDelay()).toBe(20 + MIN_RETRANSMIT_MS);
    expect(net.sampleDelay()).toBe(20);

    const { inner, got } = setup(new NetConditions({ delayMs: 20, jitterMs: 0, loss: 0.5 }, () => rolls[i++ % rolls.length]!));
    i = 1; // the open is not lost
    inner.open();
    vi.advanceTimersByTime(20);
    i = 0;
    inner.receive("lost-then-resent");
    inner.receive("behind-it");
    vi.advanceTimersByTime(21);
    expect(got).toEqual([]);
    vi.advanceTimersByTime(MIN_RETRANSMIT_MS);
    expect(got).toEqual(["lost-then-resent", "behind-it"]);
  });

  it("closes the real socket only after queued sends went out", () => {
    const { ws, inner, events } = setup(new NetConditions({ delayMs: 50, jitterMs: 0, loss: 0 }));
    inner.open();
    vi.advanceTimersByTime(50);
    ws.send("leave");
    ws.close(1000);
    expect(ws.readyState).toBe(2);
    expect(inner.closedWith).toBeUndefined();
    vi.advanceTimersByTime(50);
    expect(inner.sent).toEqual(["leave"]);
    expect(inner.closedWith).toBe(1000);
    inner.drop(1000);
    vi.advanceTimersByTime(50);
    expect(events).toEqual(["open", "close 1000"]);
    expect(ws.readyState).toBe(3);
  });

  it("switches live", () => {
    const net = new NetConditions("off");
    const { ws, inner } = setup(net);
    inner.open();
    net.set("bad");
    ws.send("x");
    expect(inner.sent).toEqual([]);
    net.set("off");
    vi.advanceTimersByTime(5000);
    expect(inner.sent).toEqual(["x"]);
    ws.send("y");
    expect(inner.sent).toEqual(["x", "y"]);
  });
});

describe("parseNetParam / NetConditions", () => {
  it("reads presets and DELAY,JITTER[,LOSS%]", () => {
    expect(parseNetParam("mobile")).toBe("mobile");
    expect(parseNetParam("80,20,1")).toEqual({ delayMs: 80, jitterMs: 20, loss: 0.01 });
    expect(parseNetParam("100,0")).toEqual({ delayMs: 100, jitterMs: 0, loss: 0 });
    expect(parseNetParam("fast")).toBeNull();
    expect(parseNetParam("toString")).toBeNull();
  });

  it("clamps custom settings and names them", () => {
    const n = new NetConditions({ delayMs: -5, jitterMs: 1e9, loss: 2 });
    expect(n.current).toEqual({ delayMs: 0, jitterMs: 5000, loss: 0.5 });
    expect(n.name).toBe("custom");
    expect(() => n.set("nope")).toThrow(RangeError);
    n.set("off");
    expect(n.off).toBe(true);
  });
});
