-- The event before each event, as the audits read it (AUDITS.md: tie inversions, clock
-- regressions, timestamp ties): in the order being viewed (window v) its ts, append key and
-- name, and in append order (window s: seq, sub, import position) the previous timestamped
-- event's ts and name. The columns of a SELECT whose FROM defines windows v and s;
-- ordered_events.sql (the corpus) and marks_events.sql (one session's frame) both use it.
-- The EV marker names an event as its finding does.
lag(ts) OVER v AS prev_view_ts,
lag(seq) OVER v AS prev_view_seq,
lag(sub) OVER v AS prev_view_sub,
lag(eid) OVER v AS prev_view_eid,
lag(/*EV*/) OVER v AS prev_view_ev,
lag(ts IGNORE NULLS) OVER s AS prev_seq_ts,
lag(CASE WHEN ts IS NOT NULL THEN /*EV*/ END IGNORE NULLS) OVER s AS prev_seq_ev
