-- One session's events as the window reads them (explorer.session.data): the EVENTS marker
-- holds session_events.sql without its texts; the AUDITS.md pairing columns, which the
-- window computes itself (SessionLog, display_pairs), are left out, and DuckDB then skips
-- their window functions (4 of the 10 s of a session of 3M events).
SELECT * EXCLUDE (call_pos, result_pos) FROM (/*EVENTS*/)
