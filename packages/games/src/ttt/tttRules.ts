/** A seat's mark. X and O alternate who opens each round. */
export type Mark = "X" | "O";

/** A 3×3 board, row-major: cell `i` is row `i / 3`, column `i % 3`. */
export type Board = (Mark | null)[];

/** The eight winning lines (rows, columns, diagonals) as cell indexes. */
export const TTT_LINES: readonly (readonly [number, number, number])[] = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
];

/** An empty board. */
export function emptyBoard(): Board {
  return [null, null, null, null, null, null, null, null, null];
}

/** The other mark. */
export function otherMark(m: Mark): Mark {
  return m === "X" ? "O" : "X";
}

/** The completed line and its mark, or null. A legal game has at most one winner. */
export function winnerOf(board: Board): { mark: Mark; line: readonly [number, number, number] } | null {
  for (const line of TTT_LINES) {
    const m = board[line[0]];
    if (m !== null && m === board[line[1]] && m === board[line[2]]) return { mark: m, line };
  }
  return null;
}

/** True when every cell is taken. */
export function isFull(board: Board): boolean {
  return board.every((c) => c !== null);
}
