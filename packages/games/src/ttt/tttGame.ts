import { refuseMessage, type AnyGameTypes } from "@tikron/protocol";
import { detachedContext, messageHandlers, refuseJoin, reject, type AdmitVerdict, type Game, type GameContext, type InputRejection, type JoiningPlayer, type Player } from "@tikron/core";
import type { tttTypes } from "../clientTypes";
import { displayName } from "../playerName";
import type { TttEnv, TttRecord, TttRecordStore } from "./tttEnv";
import { decodeTttInput, type TttInput } from "./tttInput";
import type { TttPlayerOptions, TttWhoAmI } from "./tttJoin";
import { keepsRecord, recordStoreOf } from "./tttRecords";
import { saveRound, type TttRoundResult } from "./tttResults";
import { emptyBoard, isFull, otherMark, winnerOf, type Board, type Mark } from "./tttRules";
import type { TttSeatView, TttView } from "./tttView";

interface SeatState {
  playerId: number;
  name: string;
  connected: boolean;
}

/**
 * The JSON-able state {@link TicTacToeGame.checkpoint} returns: the round as players see it
 * (the view's fields, one definition) plus who holds each seat.
 */
export interface TttCheckpoint extends Pick<TttView, "board" | "status" | "turn" | "winner" | "line" | "forfeit" | "rematch" | "round" | "score"> {
  v: 1;
  seats: Record<Mark, SeatState | null>;
}

const NO_CONTEXT: GameContext<AnyGameTypes, TttEnv> = detachedContext<AnyGameTypes, TttEnv>();

/** Store key of the room's last finished rounds (`ctx.store`: kept across restarts and sessions). */
const RECENT_KEY = "recent";
/** How many finished rounds the room keeps in its store and shows (`TttView.recent`). */
export const TTT_RECENT_ROUNDS = 5;

/**
 * `ttt-json`: turn-based tic-tac-toe for two seats, synced as JSON, with no tick loop. State
 * changes only on inputs, joins and leaves, and each change is flushed at once
 * (`ctx.markChanged()`); an idle room schedules nothing, so its only cost is the sockets'
 * keepalive.
 *
 * Rules: the first player sits as X, the second as O (anyone else only watches), and the round
 * starts when both are seated. X opens odd rounds, O even ones. Out-of-turn moves are refused with `not_your_turn`,
 * moves on a taken cell or outside a running round with `illegal_move`. After a win or draw
 * both players send `{ rematch: true }` to start the next round. A player leaving mid-round
 * forfeits it.
 *
 * Results: every finished round is kept in the room's store (the last {@link TTT_RECENT_ROUNDS},
 * shown to players as `recent`; they survive restarts and the room emptying) and, when the host
 * has a `RESULTS` D1 binding, written there off the tick path (`ctx.defer`) for the history
 * (tttResults.ts; docs/write-your-own-room.md, "Keeping results").
 *
 * Players: each seat's `Player` record (its identity, claims and join options) is kept by the
 * room and handed here on `join`, `reconnected` and `restore`. A player may ask for a mark (the
 * join option `mark`): a taken one is refused before the seat is taken (`admit`: `mark_taken`).
 * A seat shows the player's verified sign-in name (`claims.name`) when it has one. Each
 * identity's wins, losses and draws across rooms are kept where the host keeps them (tttRecords.ts:
 * D1 on Cloudflare, memory on the Node host) and shown to the player (`record`); `whoami` answers
 * the room's record of the asking player.
 */
export class TicTacToeGame implements Game<TttInput, TttEnv> {
  readonly kind = "ttt-json";
  readonly ticking = false;
  readonly sync = { mode: "json" as const, source: { viewFor: (playerId: number) => this.viewFor(playerId) } };
  private readonly seats: Record<Mark, SeatState | null> = { X: null, O: null };
  private board: Board = emptyBoard();
  private status: TttView["status"] = "waiting";
  private turn: Mark | null = null;
  private winner: Mark | null = null;
  private line: number[] | null = null;
  private forfeit = false;
  private rematch = new Set<Mark>();
  private round = 0;
  private score = { X: 0, O: 0, draws: 0 };
  private ctx: GameContext<AnyGameTypes, TttEnv> = NO_CONTEXT;
  /** Every seated player's record (watchers too), as the room handed it. */
  private readonly players = new Map<number, Player<TttPlayerOptions>>();
  /** Where players' records across rooms are kept (null: nowhere, so none are shown). */
  private recordStore: TttRecordStore | null = null;
  /** The records read (or added to) so far, by identity. */
  private readonly records = new Map<string, TttRecord>();

  init(ctx: GameContext<AnyGameTypes, TttEnv>): void {
    this.ctx = ctx;
    this.recordStore = recordStoreOf(ctx.env);
  }

  /** A player asking for a mark that is taken is refused before it takes a seat. */
  admit(player: JoiningPlayer<TttPlayerOptions>): AdmitVerdict {
    const asked = player.options.mark;
    if (asked !== undefined && this.seats[asked] !== null) return refuseJoin("mark_taken", `${asked} is taken; ask for ${otherMark(asked)}, or for no mark`);
  }

  join(player: Player<TttPlayerOptions>): void {
    const { playerId } = player;
    this.players.set(playerId, player);
    this.readRecord(player.identity);
    const asked = player.options.mark;
    const mark: Mark | null = asked !== undefined && this.seats[asked] === null ? asked : this.seats.X === null ? "X" : this.seats.O === null ? "O" : null;
    // The default cap (2) keeps a third player out; with a larger cap (a DEV_MODE override)
    // extra players watch: they get the state with `you: null` and their moves are refused.
    if (mark === null) {
      this.ctx.markChanged();
      return;
    }
    this.seats[mark] = { playerId, name: displayName(player), connected: true };
    this.score = { X: 0, O: 0, draws: 0 };
    if (this.seats.X && this.seats.O) this.startRound();
    this.ctx.markChanged();
  }

  disconnected(playerId: number): void {
    const m = this.markOf(playerId);
    if (m) {
      this.seats[m]!.connected = false;
      this.ctx.markChanged();
    }
  }

  reconnected(player: Player<TttPlayerOptions>): void {
    const { playerId } = player;
    this.players.set(playerId, player);
    const m = this.markOf(playerId);
    if (m) {
      this.seats[m]!.connected = true;
      this.ctx.markChanged();
    }
  }

  leave(playerId: number): void {
    this.players.delete(playerId);
    const m = this.markOf(playerId);
    if (!m) return;
    // Finished before the seat empties: the round's result names both players.
    if (this.status === "playing") {
      this.finish(otherMark(m), null, true);
    } else if (this.status !== "won" && this.status !== "draw") {
      this.status = "waiting";
    }
    this.seats[m] = null;
    this.rematch.clear();
    this.ctx.markChanged();
  }

  decodeInput(payload: unknown): TttInput | InputRejection {
    return decodeTttInput(payload);
  }

  applyInput(playerId: number, input: TttInput): void | InputRejection {
    const mark = this.markOf(playerId);
    if (!mark) return reject("illegal_move", "you have no seat at this table");
    return "rematch" in input ? this.askRematch(mark) : this.place(mark, input.cell);
  }

  tick(): void {
    // Not ticking: the room never calls this.
  }

  /** `whoami`: the room's record of the asking player. */
  readonly onMessage = messageHandlers<typeof tttTypes>({
    whoami: {
      check: (payload) => (payload === undefined || payload === null ? undefined : refuseMessage("bad_message", "whoami takes no payload")),
      handle: (playerId) => {
        const p = this.players.get(playerId);
        if (!p) return refuseMessage("bad_message", "no seat");
        return { playerId: p.playerId, name: p.name, identity: p.identity, claims: { ...p.claims }, options: { ...p.options } } satisfies TttWhoAmI;
      },
    },
  });

  /** The state as `playerId` sees it (also what the room sends). */
  viewFor(playerId: number): TttView {
    return {
      board: this.board.slice(),
      you: this.markOf(playerId),
      seats: { X: seatView(this.seats.X), O: seatView(this.seats.O) },
      status: this.status,
      turn: this.turn,
      winner: this.winner,
      line: this.line ? this.line.slice() : null,
      forfeit: this.forfeit,
      rematch: (["X", "O"] as const).filter((m) => this.rematch.has(m)),
      round: this.round,
      score: { ...this.score },
      recent: this.recent(),
      record: this.recordOf(playerId),
    };
  }

  /** `playerId`'s record across rooms as last read or added to; null when none is kept for it. */
  private recordOf(playerId: number): TttRecord | null {
    const identity = this.players.get(playerId)?.identity;
    const r = identity === undefined ? undefined : this.records.get(identity);
    return r ? { ...r } : null;
  }

  /** Reads `identity`'s record off the tick path, and shows it once read. */
  private readRecord(identity: string): void {
    const store = this.recordStore;
    if (!store || !keepsRecord(identity) || this.records.has(identity)) return;
    this.ctx.defer(async () => {
      const r = await store.get(identity);
      // A round may have ended meanwhile: what the room added since is in the local copy.
      if (!this.records.has(identity)) this.records.set(identity, r);
      this.ctx.markChanged();
    }, "read ttt record");
  }

  /** Adds a finished round to each seated player's record: the local copy at once, the store's off the tick path. */
  private addRecords(winner: Mark | null): void {
    const store = this.recordStore;
    if (!store) return;
    for (const m of ["X", "O"] as const) {
      const identity = this.seats[m] ? this.players.get(this.seats[m]!.playerId)?.identity : undefined;
      if (identity === undefined || !keepsRecord(identity)) continue;
      const outcome = winner === null ? "draw" : winner === m ? "win" : "loss";
      const local = this.records.get(identity);
      if (local) local[outcome === "win" ? "wins" : outcome === "loss" ? "losses" : "draws"]++;
      this.ctx.defer(() => store.add(identity, outcome), "add ttt record");
    }
  }

  /** The room's last finished rounds, newest first (from its store). */
  recent(): TttRoundResult[] {
    return this.ctx.store.get<TttRoundResult[]>(RECENT_KEY) ?? [];
  }

  private place(mark: Mark, cell: number): void | InputRejection {
    if (this.status === "waiting") return reject("illegal_move", "waiting for an opponent");
    if (this.status !== "playing") return reject("illegal_move", 'the round is over; send {"rematch": true} to play again');
    if (this.turn !== mark) return reject("not_your_turn", `it is ${this.turn}'s turn`);
    if (this.board[cell] !== null) return reject("illegal_move", `cell ${cell} is taken`);
    this.board[cell] = mark;
    const won = winnerOf(this.board);
    if (won) this.finish(won.mark, [...won.line], false);
    else if (isFull(this.board)) this.finish(null, null, false);
    else this.turn = otherMark(mark);
    this.ctx.count("moves");
    this.ctx.markChanged();
  }

  private askRematch(mark: Mark): void | InputRejection {
    if (this.status === "playing") return reject("illegal_move", "the round is still being played");
    if (!this.seats.X || !this.seats.O) return reject("illegal_move", "waiting for an opponent");
    // Asking twice is harmless: the vote is a set.
    this.rematch.add(mark);
    if (this.rematch.size === 2) this.startRound();
    this.ctx.markChanged();
  }

  private startRound(): void {
    this.round++;
    this.board = emptyBoard();
    this.status = "playing";
    this.turn = this.round % 2 === 1 ? "X" : "O";
    this.winner = null;
    this.line = null;
    this.forfeit = false;
    this.rematch.clear();
    this.ctx.count("rounds");
  }

  private finish(winner: Mark | null, line: number[] | null, forfeit: boolean): void {
    this.status = winner ? "won" : "draw";
    this.winner = winner;
    this.line = line;
    this.forfeit = forfeit;
    this.turn = null;
    if (winner) this.score[winner]++;
    else this.score.draws++;
    this.addRecords(winner);
    // The date from the room's clock (a replay of the match gives the same), not Date.now().
    this.keep({ round: this.round, endedAt: this.ctx.epoch + this.ctx.now(), x: this.seats.X?.name ?? "", o: this.seats.O?.name ?? "", outcome: winner ?? "draw", forfeit });
  }

  /** A finished round: into the room's store, and to the `RESULTS` database when there is one. */
  private keep(result: TttRoundResult): void {
    this.ctx.store.set(RECENT_KEY, [result, ...this.recent()].slice(0, TTT_RECENT_ROUNDS));
    const db = this.ctx.env?.RESULTS;
    if (db) this.ctx.defer(() => saveRound(db, this.ctx.roomId, result), "save round");
  }

  /** Everything a restart needs to continue the round on the same board (see `Game.checkpoint`). */
  checkpoint(): TttCheckpoint {
    return {
      v: 1,
      seats: { X: this.seats.X && { ...this.seats.X }, O: this.seats.O && { ...this.seats.O } },
      board: this.board.slice(),
      status: this.status,
      turn: this.turn,
      winner: this.winner,
      line: this.line ? this.line.slice() : null,
      forfeit: this.forfeit,
      rematch: [...this.rematch],
      round: this.round,
      score: { ...this.score },
    };
  }

  /**
   * Restores a {@link checkpoint}; every seated player starts disconnected, with the record the
   * room kept for it (its identity, claims and options: not the checkpoint's business). Throws
   * on a bad value.
   */
  restore(state: unknown, players: readonly Player<TttPlayerOptions>[] = []): void {
    const c = state as TttCheckpoint;
    const marks = (v: unknown): v is Mark | null => v === null || v === "X" || v === "O";
    if (!c || c.v !== 1 || !Array.isArray(c.board) || c.board.length !== 9 || !c.board.every(marks) || !marks(c.turn) || !marks(c.winner)) {
      throw new Error("not a ttt-json checkpoint");
    }
    const seat = (s: SeatState | null): SeatState | null =>
      s && Number.isInteger(s.playerId) ? { playerId: s.playerId, name: String(s.name), connected: false } : null;
    this.seats.X = seat(c.seats?.X ?? null);
    this.seats.O = seat(c.seats?.O ?? null);
    this.board = c.board.slice();
    this.status = c.status;
    this.turn = c.turn;
    this.winner = c.winner;
    this.line = Array.isArray(c.line) ? c.line.slice() : null;
    this.forfeit = c.forfeit === true;
    this.rematch = new Set((c.rematch ?? []).filter((m): m is Mark => m === "X" || m === "O"));
    this.round = Number(c.round) || 0;
    this.score = { X: Number(c.score?.X) || 0, O: Number(c.score?.O) || 0, draws: Number(c.score?.draws) || 0 };
    for (const p of players) {
      this.players.set(p.playerId, p);
      this.readRecord(p.identity);
    }
  }

  private markOf(playerId: number): Mark | null {
    if (this.seats.X?.playerId === playerId) return "X";
    if (this.seats.O?.playerId === playerId) return "O";
    return null;
  }
}

function seatView(s: SeatState | null): TttSeatView | null {
  return s ? { playerId: s.playerId, name: s.name, connected: s.connected } : null;
}
