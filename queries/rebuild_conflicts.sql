-- Recompute every conflicting key (after a changed file's old events were forgotten).
INSERT INTO conflicts
SELECT session_id, event_id FROM events WHERE event_id IS NOT NULL
GROUP BY ALL HAVING count(*) > 1
