/** The `tk:stats` fields the room panel reads (see the core's RoomStatsSnapshot). */
interface RoomStatsView {
  ccu?: number;
  cap?: number;
  bots?: { count: number; inputs: number };
  tick?: { p99: number };
  flush?: { p99: number };
  bytesOut?: number;
  bytesIn?: number;
  frames?: number;
  idleFrames?: number;
  uptimeMs?: number;
  inputs?: { received: number; rejected: number };
}

/** How often the panel asks the room (the room spaces answers per socket by 250 ms anyway). */
const POLL_MS = 2000;

/**
 * The room's own numbers beside the net graph: its `tk:stats` snapshot, asked for over the game's
 * socket with the SDK's stats request every 2 s, and only while the panel is shown.
 */
export class RoomPanel {
  visible = false;
  /** Answers received (the browser test reads it). */
  answers = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private inFlight = false;

  constructor(
    private readonly el: HTMLElement,
    private readonly request: () => Promise<unknown>,
  ) {}

  /** Shows or hides the panel; polling runs only while shown. */
  setVisible(on: boolean): void {
    this.visible = on;
    this.el.hidden = !on;
    clearInterval(this.timer);
    this.timer = undefined;
    if (!on) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), POLL_MS);
  }

  private async poll(): Promise<void> {
    if (this.inFlight) return;
    this.inFlight = true;
    try {
      const s = (await this.request()) as RoomStatsView;
      this.answers++;
      this.el.textContent = [
        "room (tk:stats)",
        `players  ${s.ccu ?? "?"} / ${s.cap ?? "?"}${s.bots ? ` (bots ${s.bots.count})` : ""}`,
        `tick p99 ${ms(s.tick?.p99)}   flush p99 ${ms(s.flush?.p99)}`,
        `out      ${kb(s.bytesOut)} in ${frames(s.frames)} frames (${s.idleFrames ?? 0} idle)`,
        `in       ${kb(s.bytesIn)}, ${s.inputs?.received ?? 0} inputs (${s.inputs?.rejected ?? 0} refused)`,
        `bot inputs ${s.bots?.inputs ?? 0}   up ${((s.uptimeMs ?? 0) / 1000).toFixed(0)} s`,
      ].join("\n");
    } catch (e) {
      this.el.textContent = `room stats unavailable: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.inFlight = false;
    }
  }

  /** Stops polling. */
  dispose(): void {
    clearInterval(this.timer);
  }
}

function ms(v: number | undefined): string {
  return v === undefined ? "?" : `${v.toFixed(1)} ms`;
}
function kb(v: number | undefined): string {
  return v === undefined ? "?" : `${(v / 1024).toFixed(1)} kB`;
}
function frames(v: number | undefined): string {
  return v === undefined ? "?" : String(v);
}
