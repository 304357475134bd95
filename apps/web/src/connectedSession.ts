import type { CloseInfo, ConnectionStats, ConnectionStatus, RoomConnection } from "@tikron/client";

/**
 * What every game page shares about its room connection: status and stats, the players of the
 * latest server state, which of them is the own avatar, and the last connection problem for the
 * overlay. Games extend it with their own state, input and drawing.
 */
export abstract class ConnectedSession<Rec, S> {
  /** The game's connection; assigned by the subclass constructor. */
  abstract readonly conn: RoomConnection<S>;
  /** Players in the latest server state, by entity id (records are the view's, live). */
  readonly players = new Map<number, Rec>();
  /** Last error reported by the connection, if any. */
  lastError: string | null = null;
  /** Entity id of the own avatar, or -1 while unknown. */
  protected selfEntity = -1;

  get status(): ConnectionStatus {
    return this.conn.status;
  }

  get stats(): ConnectionStats {
    return this.conn.stats;
  }

  get playerId(): number {
    return this.conn.playerId;
  }

  get selfId(): number {
    return this.selfEntity;
  }

  /** The own avatar's latest server record, or undefined. */
  get selfRecord(): Rec | undefined {
    return this.selfEntity >= 0 ? this.players.get(this.selfEntity) : undefined;
  }

  /** Reports connection errors and unexpected closes in {@link lastError}; `onClose` runs after. */
  protected reportConnectionProblems(onClose?: (c: CloseInfo) => void): void {
    this.conn.on("error", (e) => {
      this.lastError = `${e.name}: ${e.reason}`;
    });
    this.conn.on("close", (c) => {
      if (!c.deliberate) this.lastError = `socket closed (${c.code}${c.reason ? ` ${c.reason}` : ""})`;
      onClose?.(c);
    });
  }
}
