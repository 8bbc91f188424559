-- Add the key hashes that the rows just appended to a followed file (eid $eid_base on)
-- share with the events imported before them (its own earlier rows and other files').
INSERT INTO cand
SELECT DISTINCT hash(session_id, event_id) FROM events
WHERE eid < $eid_base AND event_id IS NOT NULL
  AND hash(session_id, event_id) IN (
      SELECT hash(session_id, event_id) FROM events
      WHERE eid >= $eid_base AND event_id IS NOT NULL)
