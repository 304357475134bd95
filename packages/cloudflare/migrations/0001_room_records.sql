-- One row per room lifetime (a match): written when a room closes.
-- A room id is reused by later matches of the same kind, so started_at is part of the key.
-- Times are Unix epoch milliseconds, matching Date.now() in the Worker.
CREATE TABLE IF NOT EXISTS room_records (
  kind        TEXT    NOT NULL,
  room_id     TEXT    NOT NULL,
  started_at  INTEGER NOT NULL,
  ended_at    INTEGER,
  peak_ccu    INTEGER NOT NULL DEFAULT 0 CHECK (peak_ccu >= 0),
  total_joins INTEGER NOT NULL DEFAULT 0 CHECK (total_joins >= 0),
  refusals    INTEGER NOT NULL DEFAULT 0 CHECK (refusals >= 0),
  -- Close reasons and their counts, e.g. {"normal":12,"timeout":1}.
  closes_json TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(closes_json)),
  PRIMARY KEY (kind, room_id, started_at),
  CHECK (ended_at IS NULL OR ended_at >= started_at)
);

-- "Recent matches" listings scan by end time, newest first.
CREATE INDEX IF NOT EXISTS room_records_ended_at ON room_records (ended_at DESC);
