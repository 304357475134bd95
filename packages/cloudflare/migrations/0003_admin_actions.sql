-- One row per action an operator took through the admin API (kick, ban, unban, lock, close,
-- notice): who (the admin token, or an Access sign-in), when (Unix ms), on which room, what
-- (the action's body as sent) and how it ended ('ok', or the refusal's code).
CREATE TABLE IF NOT EXISTS admin_actions (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at          INTEGER NOT NULL,
  actor       TEXT    NOT NULL,
  action      TEXT    NOT NULL,
  kind        TEXT    NOT NULL,
  room_id     TEXT    NOT NULL,
  detail_json TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(detail_json)),
  result      TEXT    NOT NULL
);

-- "What was done to this room", newest first.
CREATE INDEX IF NOT EXISTS admin_actions_room ON admin_actions (kind, room_id, at DESC);
