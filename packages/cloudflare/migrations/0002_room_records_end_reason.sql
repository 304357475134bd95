-- Why a session ended: 'empty' (its last seat was freed) or 'restart' (its Durable Object was
-- restarted with players seated; ended_at is then the moment the object next started a session,
-- an upper bound). NULL while the session runs.
ALTER TABLE room_records ADD COLUMN end_reason TEXT CHECK (end_reason IS NULL OR end_reason IN ('empty', 'restart'));

-- Sessions still open (or cut and never revisited), for operators looking for stuck rooms.
CREATE INDEX IF NOT EXISTS room_records_open ON room_records (kind, room_id) WHERE ended_at IS NULL;
