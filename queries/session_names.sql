-- Session ids by session number (as sweep_events.sql numbers them).
SELECT session_id FROM (SELECT DISTINCT session_id FROM events) ORDER BY session_id
