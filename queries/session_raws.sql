-- The raw records of one session's events that have one (explorer.session.data: the usage the
-- writer reported), read in batches so that a session of millions of events is never whole.
SELECT raw
FROM events JOIN event_details USING (eid)
WHERE session_id = $session_id AND raw IS NOT NULL
