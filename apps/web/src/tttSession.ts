import { ClockSync, SnapshotBuffer, attachSnapshots, connect, errorName, gameRefusal, type ConnectionStatus, type RoomConnection, jsonDialect } from "@tikron/client";
import type { TttView } from "@tikron/games/schemas";
import type { Point } from "./geometry";
import type { EntityInfo, GameSession, SessionOptions } from "./gameSession";
import type { InputState } from "./input";
import { sessionStats, type SessionStats } from "./sessionStats";

/**
 * The page's `ttt-json` game: a JSON-dialect room whose whole view arrives after every change.
 * A click on a free cell sends `{cell}`; R (or a click once the round is over) asks for a
 * rematch. There is nothing to interpolate: the snapshot buffer exists only so the overlay and
 * net graph read the same numbers for every game.
 */
export class TttSession implements GameSession {
  readonly kind = "ttt-json";
  readonly conn: RoomConnection<TttView>;
  readonly snapshots = new SnapshotBuffer({ fields: [] });
  /** The connection's clock (the overlay shows its round trip). */
  readonly clock = new ClockSync();
  showGhosts = false;
  lastError: string | null = null;
  /** The latest view, or null before the first. */
  view: TttView | null = null;
  private readonly input: InputState;
  private readonly readStats: () => SessionStats;
  /** Board geometry of the last frame (CSS pixels), for hit-testing clicks. */
  private board = { x: 0, y: 0, cell: 1 };
  private clickTimer: ReturnType<typeof setInterval>;

  constructor(o: SessionOptions) {
    this.input = o.input;
    this.conn = connect<TttView>(o.server, { kind: "ttt-json", room: o.room, name: o.name, reservation: o.reservation, joinOptions: o.joinOptions, json: jsonDialect, clock: this.clock, WebSocketImpl: o.WebSocketImpl });
    // The game's own refusal (the mark asked for is taken) says so in its words.
    this.conn.whenJoined().catch((e: unknown) => {
      const refusal = gameRefusal(e);
      if (refusal) this.lastError = `${refusal.code}: ${refusal.reason}`;
    });
    attachSnapshots(this.conn, this.snapshots);
    this.readStats = sessionStats(this.conn, this.clock, this.snapshots);
    this.conn.on("state", (f) => {
      if (f.state) this.view = f.state;
    });
    this.conn.on("welcome", () => (this.lastError = null));
    this.conn.on("error", (e) => (this.lastError = `${e.name ?? errorName(e.code)}: ${e.reason}`));
    this.conn.on("close", (c) => {
      if (!c.deliberate) this.lastError = `socket closed (${c.code}${c.reason ? ` ${c.reason}` : ""})`;
    });
    o.input.onHotkey("KeyR", () => this.rematch());
    // Clicks are counted by the input state; a turn-based game polls them a few times a second.
    this.clickTimer = setInterval(() => this.takeClick(), 50);
  }

  get status(): ConnectionStatus {
    return this.conn.status;
  }
  get stats(): SessionStats {
    return this.readStats();
  }
  get playerId(): number {
    return this.conn.playerId;
  }
  get selfId(): number {
    return this.conn.playerId;
  }

  /** Plays `cell` (0..8); the room refuses illegal moves with an error the overlay shows. */
  play(cell: number): void {
    this.conn.sendInput({ cell });
  }

  /** Asks for another round once this one is over. */
  rematch(): void {
    const v = this.view;
    if (v && (v.status === "won" || v.status === "draw")) this.conn.sendInput({ rematch: true });
  }

  render(ctx: CanvasRenderingContext2D, _now: number, width: number, height: number): void {
    ctx.fillStyle = "#10141f";
    ctx.fillRect(0, 0, width, height);
    const size = Math.min(width, height) * 0.6;
    const cell = size / 3;
    const x0 = (width - size) / 2;
    const y0 = (height - size) / 2;
    this.board = { x: x0, y: y0, cell };
    ctx.strokeStyle = "rgba(255,255,255,0.5)";
    ctx.lineWidth = 3;
    ctx.beginPath();
    for (let i = 1; i < 3; i++) {
      ctx.moveTo(x0 + i * cell, y0);
      ctx.lineTo(x0 + i * cell, y0 + size);
      ctx.moveTo(x0, y0 + i * cell);
      ctx.lineTo(x0 + size, y0 + i * cell);
    }
    ctx.stroke();
    const v = this.view;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    if (v) {
      ctx.font = `700 ${Math.round(cell * 0.7)}px system-ui, sans-serif`;
      v.board.forEach((m, i) => {
        if (!m) return;
        ctx.fillStyle = v.line?.includes(i) ? "#ffd166" : m === "X" ? "#5ec8ff" : "#ff6b8b";
        ctx.fillText(m, x0 + (i % 3) * cell + cell / 2, y0 + Math.floor(i / 3) * cell + cell / 2);
      });
    }
    ctx.font = "600 18px system-ui, sans-serif";
    ctx.fillStyle = "#e8ecf4";
    ctx.fillText(this.statusText(), width / 2, y0 - 30);
    ctx.textBaseline = "alphabetic";
  }

  /** One line for the player: whose turn, the result, or what the room waits for. */
  statusText(): string {
    const v = this.view;
    if (!v) return "joining...";
    const you = v.you ? `you are ${v.you}` : "watching";
    switch (v.status) {
      case "waiting":
        return `${you} · waiting for an opponent (open a second tab or add a bot)`;
      case "playing":
        return `${you} · ${v.turn === v.you ? "your move" : "their move"}`;
      case "won":
        return `${you} · ${v.winner === v.you ? "you won" : `${v.winner} won`}${v.forfeit ? " (forfeit)" : ""} · R or click for a rematch`;
      case "draw":
        return `${you} · draw · R or click for a rematch`;
    }
  }

  selfPosition(): Point | null {
    return null;
  }
  serverSelfPosition(): Point | null {
    return null;
  }
  entities(): EntityInfo[] {
    return [];
  }
  hudLines(): string[] {
    const v = this.view;
    if (!v) return [];
    // The room's last rounds come from its store: they outlive restarts and the room emptying.
    const recent = (v.recent ?? []).map((r) => (r.outcome === "draw" ? `${r.x} = ${r.o}` : `${r.outcome === "X" ? r.x : r.o} beat ${r.outcome === "X" ? r.o : r.x}${r.forfeit ? " (forfeit)" : ""}`));
    // Your own record comes from where the host keeps records (D1, or the Node host's memory), by your identity.
    const record = v.record ? [`your record: ${v.record.wins} won · ${v.record.losses} lost · ${v.record.draws} drawn`] : [];
    return [`round ${v.round}  score X ${v.score.X} · O ${v.score.O} · draws ${v.score.draws}`, ...record, ...(recent.length ? [`last rounds here: ${recent.join(" · ")}`] : [])];
  }
  debugExtras(): Record<string, unknown> {
    return { ttt: this.view, tttStatus: this.statusText() };
  }

  dispose(): void {
    clearInterval(this.clickTimer);
    this.conn.close();
  }

  private takeClick(): void {
    if (this.input.takeClicks() === 0) return;
    const v = this.view;
    if (!v) return;
    if (v.status === "won" || v.status === "draw") return this.rematch();
    const { x, y, cell } = this.board;
    const col = Math.floor((this.input.mouseX - x) / cell);
    const row = Math.floor((this.input.mouseY - y) / cell);
    if (col < 0 || col > 2 || row < 0 || row > 2) return;
    this.play(row * 3 + col);
  }
}
