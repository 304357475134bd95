import type { Rng } from "./rng";
import type { TextScenario } from "./scenario";

/** A seat's mark in the ttt-json room. */
type Mark = "X" | "O";

const STATUSES = new Set(["waiting", "playing", "won", "draw"]);

/** What one ttt player remembers of the last view the room sent it. */
export interface TttPlayer {
  you: Mark | null;
  status: string;
  turn: Mark | null;
  /** 9 cells, row-major; reused across views. */
  board: (Mark | null)[];
  /** Both seats are taken (a rematch needs an opponent). */
  bothSeated: boolean;
  /** This player's rematch vote is in the room's tally. */
  votedRematch: boolean;
  round: number;
  /** Whose turn it was in the last playing view: the mark whose move ended the round. */
  lastTurn: Mark | null;
}

function isMark(v: unknown): v is Mark {
  return v === "X" || v === "O";
}

function markOrNull(v: unknown): v is Mark | null {
  return v === null || isMark(v);
}

function bump(counters: Record<string, number>, name: string): void {
  counters[name] = (counters[name] ?? 0) + 1;
}

/** A fresh player that has seen nothing yet. */
export function newTttPlayer(): TttPlayer {
  return {
    you: null,
    status: "waiting",
    turn: null,
    board: [null, null, null, null, null, null, null, null, null],
    bothSeated: false,
    votedRematch: false,
    round: 0,
    lastTurn: null,
  };
}

/**
 * Takes in one `state` view. Returns false, leaving the player as it was, when the view is not
 * the room's documented shape: a guess would send moves the room must refuse.
 */
export function applyTttView(p: TttPlayer, state: unknown, counters: Record<string, number>): boolean {
  if (typeof state !== "object" || state === null) return false;
  const v = state as Record<string, unknown>;
  const board = v.board;
  const seats = v.seats as Record<string, unknown> | null | undefined;
  if (!Array.isArray(board) || board.length !== 9 || !board.every(markOrNull)) return false;
  if (!markOrNull(v.you) || !markOrNull(v.turn) || typeof v.status !== "string" || !STATUSES.has(v.status)) return false;
  if (!Array.isArray(v.rematch) || typeof v.round !== "number" || typeof seats !== "object" || seats === null) return false;
  const over = v.status === "won" || v.status === "draw";
  // Both players see the round end; only the one whose move ended it counts it, so a room's
  // games are counted once. A forfeit ends a round without a move (someone left).
  if (over && p.status === "playing" && v.forfeit !== true && p.you !== null && p.lastTurn === p.you) {
    bump(counters, "games_finished");
  }
  for (let i = 0; i < 9; i++) p.board[i] = board[i] as Mark | null;
  p.you = v.you;
  p.status = v.status;
  p.turn = v.turn;
  p.round = v.round;
  p.bothSeated = seats.X != null && seats.O != null;
  p.votedRematch = p.you !== null && v.rematch.includes(p.you);
  if (v.status === "playing") p.lastTurn = v.turn;
  return true;
}

/** A move is due (our turn) or a rematch vote (round over, not yet voted, opponent seated). */
export function tttWantsToAct(p: TttPlayer): boolean {
  if (p.you === null) return false;
  if (p.status === "playing") return p.turn === p.you;
  return (p.status === "won" || p.status === "draw") && p.bothSeated && !p.votedRematch;
}

/** The input for the last view: a uniformly random empty cell on our turn, else a rematch vote. */
export function nextTttInput(p: TttPlayer, rng: Rng, counters: Record<string, number>): unknown {
  if (!tttWantsToAct(p)) return undefined;
  if (p.status === "playing") {
    let free = 0;
    for (let i = 0; i < 9; i++) if (p.board[i] === null) free++;
    if (free === 0) return undefined;
    let k = Math.floor(rng.next() * free);
    for (let i = 0; i < 9; i++) {
      if (p.board[i] !== null) continue;
      if (k-- === 0) {
        bump(counters, "moves");
        return { cell: i };
      }
    }
    return undefined;
  }
  bump(counters, "rematches");
  return { rematch: true };
}

/**
 * Two players per `ttt-json` room taking turns: the player whose turn it is places a mark on a
 * random empty cell after the think time; the other idles. When a round ends both vote for a
 * rematch (after the think time too), which starts the next round. Counts moves, rematch votes,
 * finished rounds, and `illegal_moves`: `illegal_move` / `not_your_turn` refusals of its own
 * inputs, which a correct player never gets.
 */
export const tttJsonScenario: TextScenario<TttPlayer> = {
  wire: "json",
  name: "ttt-json",
  roomKind: "ttt-json",
  defaultThinkMs: 1000,
  // The client SDK's clock-sync ping period: what a real idle client sends.
  defaultKeepaliveMs: 2000,
  counters: ["moves", "rematches", "games_finished", "illegal_moves"],
  createPlayer: () => newTttPlayer(),
  onState: applyTttView,
  wantsToAct: tttWantsToAct,
  nextInput: nextTttInput,
  onError(_p: TttPlayer, name: string, counters: Record<string, number>): void {
    if (name === "illegal_move" || name === "not_your_turn") bump(counters, "illegal_moves");
  },
};
