-- One session's events as the turn tree needs them first (explorer.session.data.load_tree):
-- the EVENTS marker holds session_events.sql without its texts, and only the columns the
-- tree lays out are read (DuckDB then skips the others: a session of 3M events is read in
-- 2 s instead of 7). The rest of each event comes with the full load that follows.
SELECT pos, turn_no, eid, seq, sub, kind, call_id, tool, cost, note FROM (/*EVENTS*/)
