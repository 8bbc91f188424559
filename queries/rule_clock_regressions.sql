-- Rule clock_regressions (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each timestamped event earlier than the timestamped
-- event before it in append order.
SELECT session_id, eid AS unit_pos, [prev_ev, ev] AS events FROM timed WHERE ts < prev_ts
