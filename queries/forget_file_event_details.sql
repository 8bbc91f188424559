-- Forget the details of one file's events (run before its events are forgotten).
DELETE FROM event_details WHERE eid IN (SELECT eid FROM events WHERE file_id = $file_id)
