-- The raw records of every event that may report usage, with session and message_id, by
-- session then file order (explorer.session.reported_usage.corpus_usage: audit --json's usage).
SELECT session_id, message_id, raw
FROM events JOIN event_details USING (eid)
WHERE raw IS NOT NULL AND (contains(raw, 'usage') OR contains(raw, '"tokens"'))
ORDER BY session_id, eid
