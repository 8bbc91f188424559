-- Record the dropped copies, so that they are counted and can be shown.
INSERT INTO duplicates
SELECT e.file_id, e.line, e.session_id, e.event_id, e.seq, e.sub, e.kind, e.call_id, d.kept_eid
FROM events e JOIN dups d USING (eid)
