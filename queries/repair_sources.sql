-- The source file and line of each event of one session (what a repair rewrites).
SELECT e.eid, e.line, e.seq, e.sub, CAST(e.kind AS VARCHAR) AS kind, e.call_id, e.event_id,
       f.path, f.format
FROM events e JOIN files f USING (file_id)
WHERE e.session_id = $session_id
ORDER BY e.seq, e.sub, e.eid
