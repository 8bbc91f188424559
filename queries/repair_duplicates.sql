-- The rows of one session dropped at import as duplicates, with their file and line.
SELECT d.line, d.seq, d.sub, CAST(d.kind AS VARCHAR) AS kind, d.call_id, d.event_id, f.path
FROM duplicates d JOIN files f USING (file_id)
WHERE d.session_id = $session_id
ORDER BY d.line, d.sub
