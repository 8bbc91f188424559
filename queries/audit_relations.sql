-- The relations the rule fragments (rule_*.sql) read: CTEs to follow a WITH. o is the events
-- in the order being viewed (the ORDERED marker: ordered_events.sql, or one session's frame
-- in explorer.audits.marks) with ev, an event as its finding names it (the EV marker, filled
-- in ORDERED), and prev_view_ev, the event before it in that order; timed, the timestamped
-- events in append order with the ts and ev of the timestamped event before (ORDERED's
-- prev_seq_ts and prev_seq_ev: no window here, the events are sorted once); pairs, per session and call id
-- (the PAIRS marker holds fragment_call_pairs.sql); collided_turns, the (session_id, logged
-- turn)s that occur with more than one user_id. The import rules read the tables duplicates
-- and conflicts too.
o AS (/*ORDERED*/),
timed AS (
    SELECT session_id, seq, sub, eid, ts, ev, prev_seq_ts AS prev_ts, prev_seq_ev AS prev_ev
    FROM o WHERE ts IS NOT NULL
),
pairs AS (/*PAIRS*/),
collided_turns AS (
    SELECT session_id, turn FROM o WHERE turn IS NOT NULL
    GROUP BY ALL HAVING count(DISTINCT user_id) > 1
)
