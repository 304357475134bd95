import type { ConnectionStatus, RoomConnection, SnapshotBuffer, WebSocketConstructor } from "@tikron/client";
import type { Point } from "./geometry";
import type { InputState } from "./input";
import type { SessionStats } from "./sessionStats";

/** What every game session needs from the page. */
export interface SessionOptions {
  server: string;
  room: string;
  name: string;
  /** The matchmaker's seat reservation for `room`, when the page got one (joins with `?reservation=`). */
  reservation?: string | undefined;
  WebSocketImpl: WebSocketConstructor;
  input: InputState;
  /** World edge of the room (the DEV_MODE `world` override, else the game's default); ignored by board games. */
  world?: number;
  /** The player's join options (tic-tac-toe's mark), sent in every hello. */
  joinOptions?: object | undefined;
  /** Watch the room as a spectator (the lobby's "watch": no seat, no inputs; agar only). */
  watch?: boolean;
}

/** One entity as the latest server state has it (for the debug handle and tests). */
export interface EntityInfo {
  id: number;
  type: string;
  x: number;
  y: number;
  name?: string;
}

/**
 * One game played by the page: owns its connection, decoder, interpolated view and predictor,
 * samples input at the server's tick rate and draws itself. The page shell (main, overlay,
 * controls) only talks to games through this.
 */
export interface GameSession {
  readonly kind: string;
  /** Connection lifecycle and numbers. */
  readonly status: ConnectionStatus;
  readonly stats: SessionStats;
  /** The interpolation buffer of the remote entities (the overlay shows its delay band). */
  readonly snapshots: SnapshotBuffer;
  /** The welcome's player id (-1 before the first welcome). */
  readonly playerId: number;
  /** Entity id of the own avatar (-1 while unknown). */
  readonly selfId: number;
  /** Draw the latest authoritative positions as outlines next to the smoothed ones. */
  showGhosts: boolean;
  /** Draws one frame at local time `now` onto a canvas of `width` × `height` CSS pixels. */
  render(ctx: CanvasRenderingContext2D, now: number, width: number, height: number): void;
  /** The own avatar where it is drawn (predicted and smoothed), or null. */
  selfPosition(): Point | null;
  /** The own avatar in the latest server state, or null. */
  serverSelfPosition(): Point | null;
  /** Every entity of the latest server state (allocates: for debugging and tests). */
  entities(): EntityInfo[];
  /** Game-specific overlay lines (score, ammo, ...). */
  hudLines(): string[];
  /** Game-specific debug values merged into `window.__tikron`. */
  debugExtras(): Record<string, unknown>;
  /** Last error reported by the connection, if any. */
  readonly lastError: string | null;
  /** The room connection: the room panel asks it for `tk:stats` (through `withMessages`). */
  readonly conn: RoomConnection<any>;
  /** Leaves the room and stops every timer. */
  dispose(): void;
}
