-- One session's events as the rule fragments read them (the ORDERED marker of
-- audit_relations.sql, for explorer.audits.marks): the FRAME marker names a relation of its
-- events in the order being viewed (explorer.tokens.session_events), each with the ts and
-- append key of the event before it in that order and its session_id left empty.
SELECT '' AS session_id, pos, file_id, seq, sub, eid, ts, kind, call_id, user_id, turn,
    event_id,
    lag(ts) OVER v AS prev_view_ts,
    lag(seq) OVER v AS prev_view_seq,
    lag(sub) OVER v AS prev_view_sub,
    lag(eid) OVER v AS prev_view_eid
FROM /*FRAME*/
WINDOW v AS (ORDER BY pos)
