-- One session's events as the rule fragments read them (the ORDERED marker of
-- audit_relations.sql, for explorer.audits.marks): the FRAME marker names a relation of its
-- events in the order being viewed (explorer.tokens.session_events), each with the ts and
-- append key of the event before it in that order and its session_id left empty; ev and
-- its prev_view_ev and prev_seq_ev as in ordered_events.sql (the same PREV columns).
SELECT '' AS session_id, pos, file_id, seq, sub, eid, ts, kind, call_id, user_id, turn,
    event_id,
    /*EV*/ AS ev,
    /*PREV*/
FROM /*FRAME*/
WINDOW v AS (ORDER BY pos), s AS (ORDER BY seq, sub, eid)
