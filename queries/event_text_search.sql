-- The events of one session whose text holds $needle, case folded (explorer.session.event_texts:
-- Ctrl+F in the window). $eids are the session's events, $low/$high their bounds, so that only
-- the blocks holding them are read; $needle is lower case (a plain substring, no pattern).
SELECT eid
FROM event_details
WHERE eid BETWEEN $low AND $high AND list_contains($eids, eid)
  AND text IS NOT NULL AND contains(lower(text), $needle)
