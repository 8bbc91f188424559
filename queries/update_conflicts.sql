-- Add the keys of the file just imported that now occur on several kept events.
INSERT INTO conflicts
SELECT session_id, event_id FROM events
WHERE event_id IS NOT NULL AND hash(session_id, event_id) IN (SELECT key_hash FROM cand)
GROUP BY ALL HAVING count(*) > 1
EXCEPT SELECT session_id, event_id FROM conflicts
