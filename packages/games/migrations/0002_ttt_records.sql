-- Each player's own tic-tac-toe record across rooms (ttt-json), one row per identity (the room's
-- Player.identity: a ticket's player id, jwt:<sub>, a DEV_MODE guest-<key hash>), added to by
-- the game through ctx.defer when a round ends (packages/games/src/ttt/tttRecords.ts). Times are
-- Unix epoch milliseconds.
CREATE TABLE IF NOT EXISTS ttt_records (
  identity   TEXT    PRIMARY KEY,
  wins       INTEGER NOT NULL DEFAULT 0 CHECK (wins >= 0),
  losses     INTEGER NOT NULL DEFAULT 0 CHECK (losses >= 0),
  draws      INTEGER NOT NULL DEFAULT 0 CHECK (draws >= 0),
  updated_at INTEGER NOT NULL
);
