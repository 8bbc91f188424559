-- One session's events as the rule fragments read them (the ORDERED marker of
-- audit_relations.sql, for explorer.audits.marks): the FRAME marker names a relation of its
-- events in the order being viewed (explorer.tokens.session_events), each with the ts and
-- append key of the event before it in that order and its session_id left empty; ev and
-- its prev_view_ev and prev_seq_ev as in ordered_events.sql (the EV marker).
SELECT '' AS session_id, pos, file_id, seq, sub, eid, ts, kind, call_id, user_id, turn,
    event_id,
    lag(ts) OVER v AS prev_view_ts,
    lag(seq) OVER v AS prev_view_seq,
    lag(sub) OVER v AS prev_view_sub,
    lag(eid) OVER v AS prev_view_eid,
    /*EV*/ AS ev,
    lag(/*EV*/) OVER v AS prev_view_ev,
    lag(ts IGNORE NULLS) OVER s AS prev_seq_ts,
    lag(CASE WHEN ts IS NOT NULL THEN /*EV*/ END IGNORE NULLS) OVER s AS prev_seq_ev
FROM /*FRAME*/
WINDOW v AS (ORDER BY pos), s AS (ORDER BY seq, sub, eid)
