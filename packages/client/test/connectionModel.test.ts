/**
 * The connection state machine under random drives: the caller (open, close, reconnect, switchTo,
 * inputs, requests), the server (open, welcome, frames, errors, pongs, closes, joins refused after
 * the upgrade), the transport (failures the way Node 22 and browsers report them, late events of
 * sockets already dropped), the clock, ticket
 * functions that answer late or fail, and listeners that close, reconnect or switch from inside
 * `close`, `reconnecting`, `welcome` and `state`. After every step the invariants the connection
 * promises are checked; fast-check prints the shortest failing drive.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BinaryWriter, CloseCode, ErrorCode, PROTOCOL_VERSION, closeName, encodeReply, errorName, jsonDialect, readCloseReason, refusalCloseReason, toJsonWelcome } from "@tikron/protocol";
import { JoinError, connect, inputBatching, withMessages, type ConnectionStatus } from "../src/index";
import { decodeSent, errorBytes, fakeSockets, frameBytes, pongBytes, welcomeBytes, type FakeSocket } from "./helpers";

/** What the server sends, in the binary dialect or as JSON text. */
interface ServerDialect {
  welcome(lastSeq: number, token: string, version?: number): string | Uint8Array;
  frame(tick: number, ack: number): string | Uint8Array;
  error(code: number, retryAfterMs: number): string | Uint8Array;
  pong(ct: number, st: number): string | Uint8Array;
  reply(id: number): string | Uint8Array;
}

const binary: ServerDialect = {
  welcome: (lastSeq, token, version = PROTOCOL_VERSION) => welcomeBytes({ lastSeq, token, version }),
  // Two events, so a listener that ends the connection on the first is seen by the second.
  frame: (tick, ack) => frameBytes({ tick, time: tick * 50, ack, events: [new Uint8Array([1]), new Uint8Array([2])] }),
  error: (code, retryAfterMs) => errorBytes(code, "x", retryAfterMs),
  pong: (ct, st) => pongBytes(ct, st),
  reply: (id) => encodeReply(new BinaryWriter(), id, "{}").toBytes(),
};

const json: ServerDialect = {
  welcome: (lastSeq, token, version = PROTOCOL_VERSION) =>
    JSON.stringify({
      ...toJsonWelcome({ version, playerId: 1, token, tickMs: 0, syncIntervalMs: 0, serverTime: 1_700_000_000_000, roomEpoch: 1, reconnected: false, json: true, roomKind: "arena", cap: 2, schemaHash: 0, lastSeq }),
      v: version,
    }),
  frame: (tick, ack) => JSON.stringify({ t: "state", tick, time: tick * 50, ack, state: { tick }, events: [1, 2] }),
  error: (code, retryAfterMs) => JSON.stringify({ t: "error", code, name: errorName(code), reason: "x", retryAfterMs }),
  pong: (ct, st) => JSON.stringify({ t: "pong", ct, st }),
  reply: (id) => JSON.stringify({ t: "reply", id, data: {} }),
};

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

type Hookable = "close" | "reconnecting" | "welcome" | "state" | "error" | "event";
type Act = "close" | "reconnect" | "switch" | "open";
type Step =
  | { t: "open" | "reconnect" | "switch" | "whenJoined" | "request" | "input" | "flush" | "sOpen" | "sFrame" | "sPong" | "sBadWelcome" | "sReply" }
  | { t: "close"; leave: boolean }
  | { t: "sWelcome" | "join"; lastSeq: number }
  | { t: "sError"; code: number; retryAfterMs: number }
  | { t: "sClose"; code: number }
  | { t: "sRefuse"; code: number; retryAfterMs: number }
  | { t: "sFail"; how: "node" | "browser" }
  | { t: "sStale"; back: number }
  | { t: "advance"; ms: number }
  | { t: "ticket"; ok: boolean }
  | { t: "hook"; on: Hookable; act: Act };

const step: fc.Arbitrary<Step> = fc.oneof(
  // Open and welcome in one step, so drives get joined often.
  { weight: 4, arbitrary: fc.nat({ max: 20 }).map((lastSeq): Step => ({ t: "join", lastSeq })) },
  fc.constantFrom<Step>({ t: "open" }, { t: "reconnect" }, { t: "switch" }, { t: "whenJoined" }, { t: "request" }, { t: "flush" }, { t: "sPong" }, { t: "sBadWelcome" }),
  fc.boolean().map((leave): Step => ({ t: "close", leave })),
  // The server side and inputs come up most often: they move the machine forward.
  { weight: 4, arbitrary: fc.constantFrom<Step>({ t: "sOpen" }, { t: "sFrame" }, { t: "input" }, { t: "input" }, { t: "request" }, { t: "sReply" }) },
  fc.nat({ max: 20 }).map((lastSeq): Step => ({ t: "sWelcome", lastSeq })),
  fc.record({ code: fc.constantFrom(ErrorCode.room_full, ErrorCode.bad_token, ErrorCode.join_throttled, ErrorCode.rate_limited), retryAfterMs: fc.constantFrom(0, 300, 2000) }).map((e): Step => ({ t: "sError", ...e })),
  fc.constantFrom(1006, 1001, CloseCode.normal, CloseCode.bad_hello, CloseCode.room_full, CloseCode.join_throttled, CloseCode.replaced, CloseCode.slow_consumer).map((code): Step => ({ t: "sClose", code })),
  // A host refusing the join after the upgrade: open, then closed at once (a wait in the reason).
  fc
    .record({ code: fc.constantFrom(CloseCode.unauthorized, CloseCode.forbidden, CloseCode.not_found, CloseCode.join_throttled, CloseCode.join_throttled, CloseCode.unavailable), retryAfterMs: fc.constantFrom(0, 700, 2500) })
    .map((r): Step => ({ t: "sRefuse", ...r })),
  fc.constantFrom<"node" | "browser">("node", "browser").map((how): Step => ({ t: "sFail", how })),
  fc.nat({ max: 3 }).map((back): Step => ({ t: "sStale", back })),
  fc.constantFrom(0, 50, 120, 1000, 3000, 12_000).map((ms): Step => ({ t: "advance", ms })),
  fc.boolean().map((ok): Step => ({ t: "ticket", ok })),
  fc.record({ on: fc.constantFrom<Hookable>("close", "reconnecting", "welcome", "state", "error", "event"), act: fc.constantFrom<Act>("close", "reconnect", "switch", "open") }).map((h): Step => ({ t: "hook", ...h })),
);

/** Lets pending promise callbacks (ticket functions, awaits inside the connection) run. */
async function settleMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** Refusals of a join that retrying meets again: never retried. */
const FINAL_REFUSALS: ReadonlySet<number> = new Set([CloseCode.room_full, CloseCode.unauthorized, CloseCode.forbidden, CloseCode.not_found, CloseCode.bad_request, CloseCode.unavailable]);

const STATUSES: ReadonlySet<ConnectionStatus> = new Set(["idle", "connecting", "joined", "reconnecting", "closed"]);

/** One drive: every step, then the checks. Returns nothing; throws on a broken invariant. */
async function drive(steps: Step[], lateTickets: boolean, batchInputsMs: number, jsonRoom: boolean, startClosed: boolean): Promise<void> {
  const server = jsonRoom ? json : binary;
  const { Impl, sockets } = fakeSockets();
  const tickets: { resolve(t: string): void; reject(e: Error): void }[] = [];
  const conn = withMessages(connect("ws://h/", {
    kind: "arena",
    room: "r0",
    WebSocketImpl: Impl,
    now: () => Date.now(),
    connectTimeoutMs: 2000,
    batchInputs: batchInputsMs > 0 ? inputBatching(batchInputsMs) : undefined,
    json: jsonRoom ? jsonDialect : undefined,
    startClosed,
    reconnect: { maxAttempts: 4, baseMs: 100, maxMs: 1000 },
    ticket: lateTickets ? () => new Promise<string>((resolve, reject) => tickets.push({ resolve, reject })) : "t",
  }));
  const settled = new Map<Promise<unknown>, number>();
  const track = (p: Promise<unknown>, joinWait = false): void => {
    settled.set(p, 0);
    p.then(
      () => settled.set(p, settled.get(p)! + 1),
      (e: unknown) => {
        settled.set(p, settled.get(p)! + 1);
        // A join that fails says why: the close that ended the connection, by name.
        if (joinWait && !(e instanceof JoinError && (e.code === closeName(e.closeCode) || e.code === "closed"))) events.push(`whenJoined rejected with ${String(e)}`);
      },
    );
  };
  let lastSeqGiven = 0;
  /** The socket current when each seq was handed out, and the lastSeq each socket's welcome reported. */
  const seqSocket = new Map<number, FakeSocket | undefined>();
  const welcomedSeq = new Map<FakeSocket, number>();
  let lastSeqReturned = 0;
  let rooms = 0;
  /** The caller's last word: after close() (or leave) and until open, reconnect or switchTo the connection stays closed. */
  let closedByCaller = false;
  const act = (a: Act): void => {
    closedByCaller = a === "close";
    if (a !== "close") ended = false;
    if (a === "close") conn.close();
    else if (a === "reconnect") conn.reconnect();
    else if (a === "open") conn.open();
    else conn.switchTo(`r${++rooms}`);
  };
  /** The socket the server side acts on: the newest one, while it is not closed. */
  const current = (): FakeSocket | undefined => {
    const s = sockets[sockets.length - 1];
    return s && s.readyState !== 3 ? s : undefined;
  };

  const check = (where: string): void => {
    const status = conn.status;
    expect(STATUSES.has(status), where).toBe(true);
    const live = sockets.filter((s) => s.readyState !== 3);
    expect(live.length, `${where}: sockets not closed`).toBeLessThanOrEqual(1);
    if (status === "joined") expect(live[0]?.readyState, `${where}: joined on an open socket`).toBe(1);
    // Something must move an unfinished connection on: a connect timeout, a backoff delay, a ping.
    if (status !== "closed" && status !== "idle") expect(vi.getTimerCount(), `${where}: ${status} with no timer`).toBeGreaterThanOrEqual(1);
    const pending = [...settled.values()].filter((n) => n === 0).length;
    // At most the phase's one wait, the input batch and one per open request.
    expect(vi.getTimerCount(), `${where}: timers`).toBeLessThanOrEqual(2 + pending);
    if (status === "idle") expect(sockets.length + vi.getTimerCount(), `${where}: idle yet busy`).toBe(0);
    if (closedByCaller) expect(status, `${where}: closed by the caller`).toBe("closed");
    if (status === "closed") {
      expect(live.length, `${where}: closed with a socket`).toBe(0);
      expect(vi.getTimerCount(), `${where}: closed with timers`).toBe(0);
    }
    const st = conn.stats;
    for (const k of ["bytesIn", "bytesOut", "messagesIn", "messagesOut", "frames", "inputsSent", "reconnects", "decodeErrors"] as const) {
      expect(st[k], `${where}: stats.${k}`).toBeGreaterThanOrEqual(0);
    }
  };

  // Events that speak of a joined connection come only while joined.
  const events: string[] = [];
  for (const e of ["welcome", "state", "event"] as const) conn.on(e, () => events.push(conn.status === "joined" ? "" : `${e} while ${conn.status}`));
  // The largest retryAfterMs an ERROR on each socket asked for: the retry after its close waits at least that.
  const retryAfter = new Map<FakeSocket, number>();
  let lastClosed: FakeSocket | undefined;
  conn.on("reconnecting", (r) => {
    events.push(conn.status === "reconnecting" || conn.status === "connecting" ? "" : `reconnecting while ${conn.status}`);
    // The server's pause wins: the longest an ERROR or the close reason asked for.
    const floor = Math.max(lastClosed ? (retryAfter.get(lastClosed) ?? 0) : 0, readCloseReason(r.reason).retryAfterMs);
    if (r.delayMs < floor) events.push(`retry after ${r.delayMs} ms, asked ${floor}`);
  });
  // A close that ends the connection is its last until the caller starts it again.
  let ended = false;
  // One close per socket: each event reports at most one newly closed socket, and a deliberate
  // restart reports one (with no socket to drop it has nothing to report).
  const reported = new Set<FakeSocket>();
  conn.on("close", (c) => {
    if (ended) events.push(`close ${c.code} ${c.reason} after the end`);
    // A refused join ends the connection (a throttled one is retried, after its wait).
    if (!c.deliberate && FINAL_REFUSALS.has(c.code) && c.willReconnect) events.push(`close ${c.code} retried`);
    const fresh = sockets.filter((x) => x.readyState === 3 && !reported.has(x));
    if (fresh.length > 1) events.push(`one close for ${fresh.length} sockets`);
    if (fresh.length === 0 && c.deliberate && c.willReconnect) events.push(`close ${c.reason} with no socket`);
    for (const x of fresh) reported.add(x);
    lastClosed = fresh[0];
    ended = !c.willReconnect;
  });

  for (const [i, s] of steps.entries()) {
    const ws = current();
    switch (s.t) {
      case "open":
      case "reconnect":
      case "switch":
        act(s.t);
        break;
      case "close":
        closedByCaller = true;
        conn.close({ leave: s.leave });
        break;
      case "whenJoined":
        track(conn.whenJoined(), true);
        break;
      case "request":
        track(conn.request("chat", { text: "hi" }, 1500));
        break;
      case "input": {
        const seq = conn.sendInput(jsonRoom ? { i } : new Uint8Array([i & 255]));
        if (seq !== -1) {
          expect(seq, "sendInput: seq above the last one").toBeGreaterThan(lastSeqReturned);
          expect(seq, "sendInput: seq above the server's lastSeq").toBeGreaterThan(lastSeqGiven);
          lastSeqReturned = seq;
          seqSocket.set(seq, ws);
        }
        break;
      }
      case "flush":
        conn.flushInputs();
        break;
      case "sOpen":
        if (ws?.readyState === 0) ws.serverOpen();
        break;
      case "join":
      case "sWelcome":
        if (s.t === "join" && ws?.readyState === 0) ws.serverOpen();
        // A server welcomes once per socket, after its hello.
        if (ws?.readyState === 1 && ws.sent.length > 0 && !welcomedSeq.has(ws)) {
          lastSeqGiven = Math.max(lastSeqGiven, s.lastSeq);
          welcomedSeq.set(ws, s.lastSeq);
          ws.serverSend(server.welcome(s.lastSeq, `tok${i}`));
        }
        break;
      case "sBadWelcome":
        // A server of another protocol version: the connection must stop, not retry.
        if (ws?.readyState === 1 && ws.sent.length > 0) ws.serverSend(server.welcome(0, "t", 999));
        break;
      case "sFrame":
        if (ws?.readyState === 1) ws.serverSend(server.frame(i, lastSeqReturned));
        break;
      case "sPong":
        if (ws?.readyState === 1) ws.serverSend(server.pong(Date.now() - 10, 1_700_000_000_000 + i));
        break;
      case "sError":
        if (ws?.readyState === 1) {
          retryAfter.set(ws, Math.max(retryAfter.get(ws) ?? 0, s.retryAfterMs));
          ws.serverSend(server.error(s.code, s.retryAfterMs));
        }
        break;
      case "sReply": {
        // Answers every request this socket carried (twice: a repeated reply must change nothing).
        const ids = (ws?.sent ?? []).map(decodeSent).flatMap((m) => ("t" in m ? (m.t === "msg" ? [m.id] : []) : m.kind === "message" ? [m.requestId] : []));
        for (const id of [...ids, ...ids]) if (id && ws?.readyState === 1) ws.serverSend(server.reply(id));
        break;
      }
      case "sClose":
        ws?.serverClose(s.code, "server");
        break;
      case "sRefuse":
        if (ws?.readyState === 0) ws.serverOpen();
        ws?.serverClose(s.code, refusalCloseReason("refused", s.retryAfterMs));
        break;
      case "sFail":
        ws?.serverFail(s.how);
        // However the implementation reports it, a failed transport is a drop at once, not a connect timeout.
        if (ws && !reported.has(ws)) events.push(`a ${s.how} transport failure was not a drop`);
        break;
      case "sStale": {
        // A socket the connection is done with fails and closes late (Node may close a socket
        // it only reported an error for): the connection must not hear it.
        const old = sockets.filter((x) => x !== ws && x.readyState === 3)[s.back];
        if (old) {
          const heard: string[] = [];
          const offs = (["close", "reconnecting", "error", "welcome"] as const).map((e) => conn.on(e, () => heard.push(e)));
          old.onerror?.({ message: "late" });
          old.onclose?.({ code: 1006, reason: "" });
          for (const off of offs) off();
          if (heard.length > 0) events.push(`a dropped socket was heard: ${heard.join(",")}`);
        }
        break;
      }
      case "advance":
        await vi.advanceTimersByTimeAsync(s.ms);
        break;
      case "ticket": {
        const t = tickets.shift();
        if (s.ok) t?.resolve("t");
        else t?.reject(new Error("no ticket"));
        break;
      }
      case "hook":
        conn.once(s.on, () => act(s.act));
        break;
    }
    await settleMicrotasks();
    check(`step ${i} ${JSON.stringify(s)}`);
    expect(events.filter((e) => e !== ""), `step ${i}`).toEqual([]);
  }

  // The end: every promise settles exactly once, nothing is left running.
  // A once-listener may start the connection again from inside close: close until it stays closed.
  for (let n = 0; n < 10 && conn.status !== "closed"; n++) {
    closedByCaller = true;
    conn.close();
    await settleMicrotasks();
  }
  check("after close");
  for (const [, n] of settled) expect(n, "each promise settles exactly once").toBe(1);
  expect(sockets.filter((x) => !reported.has(x)).length, "sockets whose close was never reported").toBe(0);
  expect(events.filter((e) => e !== ""), "after close").toEqual([]);
  // Sequence numbers on the wire strictly increase across every socket.
  let prev = 0;
  for (const sock of sockets) {
    for (const m of sock.sent.map(decodeSent)) {
      const entries = "t" in m ? (m.t === "input" ? [{ seq: m.seq }] : []) : m.kind === "input" ? m.inputs : [];
      for (const e of entries) {
        // An input leaves on the socket it was given on (never replayed after a drop), above what that seat had applied.
        expect(seqSocket.get(e.seq) === sock, `seq ${e.seq} on another socket`).toBe(true);
        expect(e.seq, "seq above the welcome's lastSeq").toBeGreaterThan(welcomedSeq.get(sock) ?? 0);
        expect(e.seq, "seq on the wire").toBeGreaterThan(prev);
        prev = e.seq;
      }
    }
  }
}

describe("connection state machine (model-based)", () => {
  it("keeps its invariants over random drives of caller, server, clock, tickets and listeners", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60, size: "max" }), fc.boolean(), fc.constantFrom(0, 40), fc.boolean(), fc.boolean(), async (steps, lateTickets, batch, jsonRoom, startClosed) => {
        vi.clearAllTimers();
        await drive(steps, lateTickets, batch, jsonRoom, startClosed);
      }),
      { numRuns: 1000 },
    );
  });
});
