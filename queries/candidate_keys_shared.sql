-- Add the key hashes that the rows being imported share with the events kept already
-- (other files', and a followed file's own earlier rows): run before they are inserted.
INSERT INTO cand
SELECT DISTINCT hash(session_id, event_id) FROM events
WHERE event_id IS NOT NULL
  AND hash(session_id, event_id) IN (
      SELECT hash(session_id, event_id) FROM (/*TYPED*/) WHERE event_id IS NOT NULL)
