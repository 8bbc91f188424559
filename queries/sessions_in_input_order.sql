-- Session ids in the order they were imported (their first event).
SELECT session_id FROM events GROUP BY session_id ORDER BY min(eid)
