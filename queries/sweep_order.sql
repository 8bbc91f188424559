-- The corpus order of the sweep: every event's eid, by session (session_id order, as in
-- sweep_sessions) and then in the order being viewed (the ORDER marker holds its sort key).
-- Only the key and the eid are sorted: the columns come unsorted from sweep_events.
SELECT eid FROM events ORDER BY session_id, /*ORDER*/
