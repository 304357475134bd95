-- Finished tic-tac-toe rounds (ttt-json), one row each, written by the game through ctx.defer
-- when a round ends (packages/games/src/ttt/tttResults.ts). Times are Unix epoch milliseconds.
CREATE TABLE IF NOT EXISTS ttt_rounds (
  room_id  TEXT    NOT NULL,
  ended_at INTEGER NOT NULL,
  round    INTEGER NOT NULL CHECK (round >= 1),
  x_name   TEXT    NOT NULL,
  o_name   TEXT    NOT NULL,
  -- 'X' or 'O' won, or a 'draw'.
  outcome  TEXT    NOT NULL CHECK (outcome IN ('X', 'O', 'draw')),
  -- 1 when the round was won because the other player left.
  forfeit  INTEGER NOT NULL DEFAULT 0 CHECK (forfeit IN (0, 1)),
  PRIMARY KEY (room_id, ended_at, round)
);

-- A room's history, newest first.
CREATE INDEX IF NOT EXISTS ttt_rounds_room ON ttt_rounds (room_id, ended_at DESC);
