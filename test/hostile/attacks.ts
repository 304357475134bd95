import WebSocket from "ws";
import { BinaryWriter, CloseCode, FINAL_JOIN_REFUSALS, PROTOCOL_VERSION, encodeHello, encodeInputs, encodeLeave, readCloseReason } from "@tikron/protocol";

/**
 * The attacks of the hostile suite, each by ONE identity (one ticket): what one player can do
 * to a room on its own. Every loop is bounded in count and time, and traffic goes only to the
 * URL given (the suite uses loopback).
 */

/** What an attack did, for the report. */
export interface AttackTally {
  sockets: number;
  frames: number;
  /**
   * Joins refused: closed with a refusal code (join_throttled for the room's and the gateway's
   * admission refusals: backlog, identity limits, cooldown) right after the upgrade, or at hello.
   */
  refused: number;
}

export type AttackName = "silent_sockets" | "hello_leave" | "rejected_inputs" | "random_bytes" | "upgrade_flood";

/**
 * The attacks, all held to the suite's bar (see `verdict`). Their pace, one identity on one
 * client: `hello_leave` joins and leaves on 4 sockets at once, 20 ms after each refusal
 * (~120 upgrade requests/s measured here, Retry-After ignored); `rejected_inputs` and
 * `random_bytes` send 50 frames/s on one socket and reconnect 100 ms after a kick;
 * `silent_sockets` tries to hold 300 sockets that never say hello, in bursts of 50 upgrades at
 * once, waiting out each refusal's wait; `upgrade_flood` does the same but retries 100 ms later
 * whatever it was told (~200 requests/s measured here, when refusals were HTTP 429s). Refused
 * upgrades are answered by the gateway (core join/callerGate.ts), mostly without
 * waking the room's object, as an upgrade closed at once with `join_throttled` and the wait.
 */
export const ATTACKS: readonly AttackName[] = ["hello_leave", "rejected_inputs", "random_bytes", "silent_sockets", "upgrade_flood"];

/**
 * Attacks measured but held to the joins bar only (every honest join succeeds, no honest player
 * is dropped), for an attack whose local cost cannot be brought within 2× (then say why in
 * PERFORMANCE.md). None today.
 */
export const REPORTED_ONLY: readonly AttackName[] = [];

/** Hard caps whatever the duration: sockets opened and frames sent per attack. */
const MAX_SOCKETS = 5_000;
const MAX_FRAMES = 2_000_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Close codes of a refused join (the gateway's and the room's). */
const REFUSALS: ReadonlySet<number> = new Set([CloseCode.join_throttled, ...FINAL_JOIN_REFUSALS]);

/**
 * Opens a socket; null when refused (then `retryAfter.ms` holds the refusal's wait). A refused
 * join is upgraded and closed at once, so an opened socket is watched `settleMs` for that close
 * before it counts as admitted; with 0 it is handed over at once (a refusal arriving later still
 * counts).
 */
function open(url: string, tally: AttackTally, retryAfter = { ms: 0 }, settleMs = 0): Promise<WebSocket | null> {
  if (tally.sockets >= MAX_SOCKETS) return Promise.resolve(null);
  tally.sockets++;
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on("error", () => resolve(null));
    ws.once("close", (code, reason) => {
      if (REFUSALS.has(code)) {
        tally.refused++;
        retryAfter.ms = Math.max(retryAfter.ms, readCloseReason(reason.toString()).retryAfterMs || 1000);
      }
      resolve(null);
    });
    ws.on("open", () => (settleMs > 0 ? setTimeout(() => resolve(ws), settleMs) : resolve(ws)));
  });
}

/** Runs `attack` with `url` (the attacker's join URL) until `until` (performance.now() ms). */
export async function runAttack(attack: AttackName, url: string, until: number): Promise<AttackTally> {
  const tally: AttackTally = { sockets: 0, frames: 0, refused: 0 };
  const live: WebSocket[] = [];
  const w = new BinaryWriter(4096);
  const hello = () => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: "mallory" }).toBytes();
  try {
    switch (attack) {
      case "silent_sockets":
      case "upgrade_flood": {
        // Keep up to 300 sockets open that never say hello; reopen whatever the room closes.
        // silent_sockets waits out a refusal's Retry-After; upgrade_flood retries at once.
        while (performance.now() < until && tally.sockets < MAX_SOCKETS) {
          for (let i = live.length - 1; i >= 0; i--) if (live[i]!.readyState !== WebSocket.OPEN) live.splice(i, 1);
          const want = Math.min(300 - live.length, 50);
          const retryAfter = { ms: 0 };
          const opened = await Promise.all(Array.from({ length: Math.max(0, want) }, () => open(url, tally, retryAfter, 100)));
          for (const ws of opened) if (ws) live.push(ws);
          // Never past the phase's end: a Retry-After may be longer than what is left of it.
          await sleep(Math.min(attack === "silent_sockets" ? Math.max(100, retryAfter.ms) : 100, Math.max(0, until - performance.now())));
        }
        break;
      }
      case "hello_leave": {
        // Join and leave as fast as the room answers, on 4 sockets at once.
        const loop = async () => {
          while (performance.now() < until && tally.sockets < MAX_SOCKETS) {
            const ws = await open(url, tally);
            if (!ws) {
              await sleep(20);
              continue;
            }
            live.push(ws);
            const answered = new Promise<void>((r) => {
              ws.once("message", () => r());
              ws.once("close", () => r());
              setTimeout(r, 1000);
            });
            ws.send(hello());
            tally.frames++;
            await answered;
            if (ws.readyState === WebSocket.OPEN) {
              ws.send(encodeLeave(w.reset()).toBytes());
              tally.frames++;
            }
            ws.terminate();
          }
        };
        await Promise.all([loop(), loop(), loop(), loop()]);
        break;
      }
      case "rejected_inputs":
      case "random_bytes": {
        // One seated socket (rejected inputs) or unseated sockets (random bytes) sending at 50
        // frames/s, under the message budget; reconnect whenever kicked.
        // agar's declared input is 3 bytes of levels 0..254 (stick) and 0..1 (boost): 0xff is past every range.
        const bad = Array.from({ length: 16 }, (_, i) => ({ seq: i + 1, payload: new Uint8Array([0xff, 0xff, 0xff]) }));
        let seq = 0;
        while (performance.now() < until && tally.sockets < MAX_SOCKETS && tally.frames < MAX_FRAMES) {
          const ws = await open(url, tally);
          if (!ws) {
            await sleep(100);
            continue;
          }
          live.push(ws);
          if (attack === "rejected_inputs") ws.send(hello());
          while (ws.readyState === WebSocket.OPEN && performance.now() < until && tally.frames < MAX_FRAMES) {
            if (attack === "rejected_inputs") {
              for (const e of bad) e.seq = ++seq;
              ws.send(encodeInputs(w.reset(), bad).toBytes());
            } else {
              const n = 1 + Math.floor(Math.random() * 256);
              const bytes = new Uint8Array(n);
              for (let i = 0; i < n; i++) bytes[i] = (Math.random() * 256) | 0;
              ws.send(bytes);
            }
            tally.frames++;
            await sleep(20);
          }
          ws.terminate();
        }
        break;
      }
    }
  } finally {
    for (const ws of live) ws.terminate();
  }
  return tally;
}
