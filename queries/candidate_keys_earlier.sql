-- Add the key hashes that the file just imported shares with earlier files.
INSERT INTO cand
SELECT DISTINCT hash(session_id, event_id) FROM events
WHERE file_id <> $file_id AND event_id IS NOT NULL
  AND hash(session_id, event_id) IN (
      SELECT hash(session_id, event_id) FROM events
      WHERE file_id = $file_id AND event_id IS NOT NULL)
