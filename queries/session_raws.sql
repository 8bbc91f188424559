-- The raw records of one session's events that may report usage, with their message_id, in
-- file order (explorer.session.data: the usage the writer reported, its last figures per
-- response), read in batches so that a session of millions of events is never whole.
SELECT message_id, raw
FROM events JOIN event_details USING (eid)
WHERE session_id = $session_id AND raw IS NOT NULL
  AND (contains(raw, 'usage') OR contains(raw, '"tokens"'))
ORDER BY eid
