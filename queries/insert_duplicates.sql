-- Record the copies left out (find_duplicates.sql), so that they are counted and can be shown.
INSERT INTO duplicates
SELECT file_id, line, session_id, event_id, seq, sub, kind, call_id, kept_eid FROM dups
