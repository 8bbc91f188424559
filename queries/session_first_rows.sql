-- Each session with the file and line of its first event, in the order they were imported
-- (explorer.spark: the driver puts the sessions of all tasks in input order by these).
SELECT e.session_id, f.path, arg_min(e.line, e.eid) AS line
FROM events e JOIN files f USING (file_id)
GROUP BY e.session_id, f.path, e.file_id
QUALIFY e.file_id = min(e.file_id) OVER (PARTITION BY e.session_id)
ORDER BY min(e.eid)
