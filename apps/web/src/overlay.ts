import type { GameSession } from "./gameSession";
import type { NetConditions } from "./netConditions";
import { RateMeter } from "./rateMeter";

/** How often the text is rebuilt (ms): readable, and no DOM work on most frames. */
const REFRESH_MS = 250;

/**
 * The stats panel: the SDK's live connection numbers (RTT, clock offset, interpolation delay,
 * starvations, prediction error, traffic) plus measured rates (state frames/s, render fps).
 * The panel's text is rebuilt a few times a second, never per frame.
 */
export class StatsOverlay {
  private readonly el: HTMLElement;
  private readonly framesRate = new RateMeter();
  private readonly inRate = new RateMeter();
  private readonly outRate = new RateMeter();
  private readonly renderRate = new RateMeter();
  private rendered = 0;
  private lastRefresh = -Infinity;

  constructor(
    el: HTMLElement,
    private readonly session: GameSession,
    private readonly net: NetConditions,
    private readonly header: string,
  ) {
    this.el = el;
  }

  /** Render frames counted so far. */
  get renderedFrames(): number {
    return this.rendered;
  }

  /** Render frames per second over the last second. */
  get fps(): number {
    return this.renderRate.rate;
  }

  /** Counts a rendered frame and refreshes the text when due. */
  frame(now: number): void {
    this.rendered++;
    const st = this.session.stats;
    this.framesRate.sample(st.frames, now);
    this.inRate.sample(st.bytesIn, now);
    this.outRate.sample(st.bytesOut, now);
    this.renderRate.sample(this.rendered, now);
    if (now - this.lastRefresh < REFRESH_MS) return;
    this.lastRefresh = now;
    this.el.textContent = this.text();
  }

  private text(): string {
    const s = this.session;
    const st = s.stats;
    const snaps = s.snapshots;
    const p = this.net.current;
    const net = this.net.off ? "off" : `${this.net.name} (+${p.delayMs}..${p.delayMs + p.jitterMs} ms each way, ${(p.loss * 100).toFixed(1)}% loss as retransmit stalls)`;
    const lines = [
      this.header,
      `status      ${s.status}${s.playerId >= 0 ? `  player ${s.playerId}` : ""}${s.selfId >= 0 ? `  entity ${s.selfId}` : ""}`,
      `rtt         ${st.rttMs.toFixed(1)} ms (min ${st.minRttMs.toFixed(1)})`,
      `clock skew  ${clockSkew(st.clockOffsetMs)}`,
      `interp.     ${st.interpolationDelayMs.toFixed(0)} ms (target ${snaps.targetDelayMs.toFixed(0)}, floor ${snaps.floorDelayMs.toFixed(0)})`,
      `starvations ${st.starvations}${snaps.starved ? " (starved)" : ""}`,
      `pred. error ${st.predictionError.toFixed(2)} (max ${st.predictionErrorMax.toFixed(2)}), pending ${st.pendingInputs}`,
      `traffic     in ${kb(st.bytesIn)} (${kbps(this.inRate.rate)})  out ${kb(st.bytesOut)} (${kbps(this.outRate.rate)})`,
      `frames/s    ${this.framesRate.rate.toFixed(1)} from server, ${this.renderRate.rate.toFixed(0)} rendered`,
      `inputs      ${st.inputsSent} sent, last ack ${st.lastAck}, reconnects ${st.reconnects}`,
      `network     ${net}`,
      ...s.hudLines(),
    ];
    if (s.lastError) lines.push(`error       ${s.lastError}`);
    return lines.join("\n");
  }
}

/**
 * The SDK's offset is server wall clock minus the local *monotonic* clock, a huge number that
 * says little by itself; relative to this machine's wall clock it becomes the skew between the
 * two clocks (near zero on a synced machine), which is what is worth watching.
 */
function clockSkew(offsetMs: number): string {
  if (offsetMs === 0) return "not synced yet";
  const skew = offsetMs - performance.timeOrigin;
  return `${skew >= 0 ? "+" : ""}${skew.toFixed(1)} ms vs local wall clock`;
}

function kb(bytes: number): string {
  return bytes < 10_240 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`;
}

function kbps(bytesPerSec: number): string {
  return `${(bytesPerSec / 1024).toFixed(1)} kB/s`;
}
