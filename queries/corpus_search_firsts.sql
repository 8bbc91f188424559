-- The first matching event of each session the corpus search lists
-- (explorer.session.corpus_search): by its eid, its kind, call_id and text (the snippet).
SELECT e.eid, e.kind::VARCHAR AS kind, e.call_id, d.text
FROM events e
JOIN event_details d USING (eid)
WHERE e.eid IN (SELECT unnest($eids))
