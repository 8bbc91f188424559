-- The columns of one session's events the audit marks read besides those of its tree
-- (explorer.session.data.load_session, when a rule found something in the session): the
-- EVENTS marker holds session_events.sql without its texts.
SELECT pos, file_id, ts, user_id, turn, event_id FROM (/*EVENTS*/) ORDER BY pos
