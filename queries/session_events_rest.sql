-- The rest of one session's events once its tree is read (explorer.session.data.load_session
-- after load_tree): the EVENTS marker holds session_events.sql without its texts; the columns
-- session_events_tree.sql read already are left out (pos stays: the rows are checked to be
-- the same), as are the AUDITS.md pairing columns (see session_events_narrow.sql).
SELECT * EXCLUDE (call_pos, result_pos, turn_no, eid, seq, sub, kind, call_id, tool, cost, note)
FROM (/*EVENTS*/)
