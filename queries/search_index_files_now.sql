-- The files of the database as the corpus search's index keys them: digest, first and
-- last import position, number of events.
SELECT f.file_id, f.sha256, min(e.eid) AS low, max(e.eid) AS high, count(*) AS events
FROM events e
JOIN files f USING (file_id)
GROUP BY f.file_id, f.sha256
ORDER BY f.file_id
