import { errorName, type ClockSync, type CloseInfo, type ConnectionStatus, type InterpolatedView, type RoomConnection, type SnapshotBuffer } from "@tikron/client";
import { sessionStats, type PredictionNumbers, type SessionStats } from "./sessionStats";

/**
 * What every game page shares about its room connection: status and stats, the players of the
 * latest server state, which of them is the own avatar, the interpolated remote entities, and
 * the last connection problem for the overlay. Games extend it with their own state, input and
 * drawing.
 */
export abstract class ConnectedSession<Rec extends { readonly pid: number }, S> {
  /** The game's connection; assigned by the subclass constructor. */
  abstract readonly conn: RoomConnection<S>;
  /** Other players, smoothed for drawing; assigned by the subclass constructor. */
  abstract readonly remotes: InterpolatedView<S>;
  /** The connection's clock (the overlay shows its round trip); assigned by the subclass. */
  abstract readonly clock: ClockSync;
  /** The own avatar's predictor; assigned by the subclass constructor. */
  abstract readonly predictor: PredictionNumbers;
  /** Players in the latest server state, by entity id (records are the view's, live). */
  readonly players = new Map<number, Rec>();
  /** Last error reported by the connection, if any. */
  lastError: string | null = null;
  /** Entity id of the own avatar, or -1 while unknown. */
  protected selfEntity = -1;
  /** The own entity id at the last {@link takeSelfChange}. */
  private selfSeen = -1;
  private readStats: (() => SessionStats) | undefined;

  /** The connection's lifecycle status. */
  get status(): ConnectionStatus {
    return this.conn.status;
  }

  /** The connection's, clock's, buffer's and predictor's live numbers (one object, refreshed on read). */
  get stats(): SessionStats {
    return (this.readStats ??= sessionStats(this.conn, this.clock, this.remotes.buffer, this.predictor))();
  }

  /** The welcome's player id (-1 before the first welcome). */
  get playerId(): number {
    return this.conn.playerId;
  }

  /** Entity id of the own avatar (-1 while unknown). */
  get selfId(): number {
    return this.selfEntity;
  }

  /** The snapshot buffer behind {@link remotes} (the overlay shows its delay numbers). */
  get snapshots(): SnapshotBuffer {
    return this.remotes.buffer;
  }

  /** The own avatar's latest server record, or undefined. */
  get selfRecord(): Rec | undefined {
    return this.selfEntity >= 0 ? this.players.get(this.selfEntity) : undefined;
  }

  /**
   * A player entity entered the view (the view's `onAdd`). The own avatar is recognised here, as
   * it arrives, rather than by scanning every player on every frame.
   */
  protected playerEntered(id: number, rec: Rec): void {
    this.players.set(id, rec);
    if (rec.pid === this.conn.playerId) this.selfEntity = id;
  }

  /** A player entity left the view (the view's `onRemove`). */
  protected playerLeft(id: number): void {
    this.players.delete(id);
    if (id === this.selfEntity) this.selfEntity = -1;
  }

  /** Forgets every player (a welcome: the decoder starts again from an empty baseline). */
  protected clearPlayers(): void {
    this.players.clear();
    this.selfEntity = -1;
    this.selfSeen = -1;
  }

  /**
   * True when the own avatar is another entity than at the previous call (first seen, gone,
   * replaced): smoothing state carried over from the old one would slide the view.
   */
  protected takeSelfChange(): boolean {
    const changed = this.selfEntity !== this.selfSeen;
    this.selfSeen = this.selfEntity;
    return changed;
  }

  /** Reports connection errors and unexpected closes in {@link lastError}; `onClose` runs after. */
  protected reportConnectionProblems(onClose?: (c: CloseInfo) => void): void {
    this.conn.on("error", (e) => {
      this.lastError = `${e.name ?? errorName(e.code)}: ${e.reason}`;
    });
    this.conn.on("close", (c) => {
      if (!c.deliberate) this.lastError = `socket closed (${c.code}${c.reason ? ` ${c.reason}` : ""})`;
      onClose?.(c);
    });
  }
}
