/**
 * `--spectators N`: spectator sockets beside a run's players (a join URL with `spectate=1`,
 * core/src/spectate). Each says hello and reads frames; the run reports how many joined, each
 * one's frames per second (every frame of a bundle counted: what it decodes) and messages per
 * second apart (a delayed spectator gets its frames in bundles, protocol bundle.ts), and the
 * gaps between its messages. Loopback or the run's own URL only, bounded in count (N) and time
 * (the run's window).
 */
import { DecodeError, Kind, binaryDialect, readBundle, spectateQuery } from "@tikron/protocol";
import WebSocket from "ws";
import { type ResolvedConfig, roomUrl } from "../load/config";
import type { SpectatorSummary } from "../metrics/spectatorSummary";

export type { SpectatorSummary } from "../metrics/spectatorSummary";

/** How long a spectator's first second is left out of its rate (its keyframe and the welcome's). */
const SETTLE_MS = 1000;

interface Watch {
  ws: WebSocket;
  welcomed: boolean;
  /** Arrival of each message carrying frames, and how many frames it carried. */
  times: number[];
  counts: number[];
  close: number | null;
}

/** N spectators over the rooms of a run (see the file's comment). */
export class SpectatorSwarm {
  private readonly watches: Watch[] = [];

  constructor(private readonly cfg: ResolvedConfig) {}

  /** Opens every spectator now, room `i % rooms` for spectator `i`, paced `paceMs` apart. */
  async start(paceMs = 2): Promise<void> {
    const { cfg } = this;
    const q = spectateQuery({ target: null, delaySec: cfg.spectatorDelaySec });
    const hello = binaryDialect.hello("", "spectator") as Uint8Array;
    for (let i = 0; i < cfg.spectators; i++) {
      const base = roomUrl(cfg, i % cfg.rooms);
      const ws = new WebSocket(`${base}${base.includes("?") ? "&" : "?"}${q}`, { perMessageDeflate: false });
      const w: Watch = { ws, welcomed: false, times: [], counts: [], close: null };
      this.watches.push(w);
      ws.binaryType = "nodebuffer";
      ws.on("open", () => ws.send(hello));
      ws.on("message", (data: Buffer) => {
        const kind = data[0];
        if (kind === Kind.Welcome) w.welcomed = true;
        else if (kind === Kind.Frame || kind === Kind.Bundle) {
          w.times.push(performance.now());
          const bundled = kind === Kind.Bundle ? readBundle(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) : null;
          w.counts.push(bundled === null ? 1 : bundled instanceof DecodeError ? 0 : bundled.length);
        }
      });
      ws.on("close", (code) => (w.close = code));
      ws.on("error", () => {});
      if (paceMs > 0) await new Promise((r) => setTimeout(r, paceMs));
    }
  }

  /** Closes every spectator and sums up what they saw. */
  stop(): SpectatorSummary {
    const end = performance.now();
    const rates: number[] = [];
    const messageRates: number[] = [];
    const gaps: number[] = [];
    const closes: Record<string, number> = {};
    let frames = 0;
    let messages = 0;
    for (const w of this.watches) {
      if (w.close !== null) closes[w.close] = (closes[w.close] ?? 0) + 1;
      w.ws.close(1000, "run over");
      for (const c of w.counts) frames += c;
      messages += w.times.length;
      if (!w.welcomed) continue;
      const t = w.times;
      const from = t.length > 0 ? t[0]! + SETTLE_MS : end;
      let n = 0;
      let m = 0;
      for (let i = 0; i < t.length; i++) {
        if (t[i]! < from) continue;
        n += w.counts[i]!;
        m++;
        if (i > 0) gaps.push(t[i]! - t[i - 1]!);
      }
      const span = end - from;
      rates.push(span > 0 ? (n * 1000) / span : 0);
      messageRates.push(span > 0 ? (m * 1000) / span : 0);
    }
    rates.sort((a, b) => a - b);
    messageRates.sort((a, b) => a - b);
    gaps.sort((a, b) => a - b);
    const at = (v: number[], p: number) => Math.round(v[Math.min(v.length - 1, Math.floor(p * v.length))]! * 100) / 100;
    return {
      requested: this.cfg.spectators,
      joined: rates.length,
      closes,
      frames,
      messages,
      framesPerSec: rates.length ? { min: at(rates, 0), p5: at(rates, 0.05), p50: at(rates, 0.5) } : null,
      messagesPerSec: messageRates.length ? { p50: at(messageRates, 0.5) } : null,
      gapMs: gaps.length ? { p50: at(gaps, 0.5), p99: at(gaps, 0.99), max: at(gaps, 1) } : null,
      below19: rates.filter((r) => r < 19).length,
    };
  }
}
