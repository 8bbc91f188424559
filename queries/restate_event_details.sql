-- The details of the events of a followed file's earlier records that its new lines
-- restate (staged with a negative record number, explorer.ingest.appending): replaced by
-- what reading the whole file gives now. An event is found by its line and sub.
UPDATE event_details d SET text = p.text, is_error = p.is_error, synthetic = p.synthetic,
    branch = p.branch, archived = p.archived, raw = p.raw, parent_session = p.parent_session,
    parent_call = p.parent_call, note = p.note
FROM parsed p, events e
WHERE p.row_no IN (SELECT row_no FROM record_rows WHERE rec < 0) AND p.reason IS NULL
  AND e.file_id = $file_id AND e.line = p.line AND e.sub = p.sub
  AND e.session_id = p.session_id AND d.eid = e.eid
