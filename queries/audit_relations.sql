-- The relations the rule fragments (rule_*.sql) read: CTEs to follow a WITH. o is the events
-- in the order being viewed (the ORDERED marker: ordered_events.sql, or one session's frame
-- in explorer.audits.marks) with ev, an event as its finding names it (the EV marker), and
-- prev_view_ev, the event before it in that order; timed, the timestamped events in append
-- order with the ts and ev of the timestamped event before; pairs, per session and call id
-- (the PAIRS marker holds fragment_call_pairs.sql); collided_turns, the (session_id, logged
-- turn)s that occur with more than one user_id. The import rules read the tables duplicates
-- and conflicts too.
o AS (
    SELECT *, lag(ev) OVER w AS prev_view_ev
    FROM (SELECT *, /*EV*/ AS ev FROM (/*ORDERED*/))
    WINDOW w AS (PARTITION BY session_id ORDER BY pos)
),
timed AS (
    SELECT session_id, seq, sub, eid, ts, ev,
        lag(ts) OVER s AS prev_ts, lag(ev) OVER s AS prev_ev
    FROM o WHERE ts IS NOT NULL
    WINDOW s AS (PARTITION BY session_id ORDER BY seq, sub, eid)
),
pairs AS (/*PAIRS*/),
collided_turns AS (
    SELECT session_id, turn FROM o WHERE turn IS NOT NULL
    GROUP BY ALL HAVING count(DISTINCT user_id) > 1
)
