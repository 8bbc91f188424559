-- Rule tie_inversions (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each adjacent pair of this order with equal ts and
-- the later one earlier in append order (seq, sub, import position).
SELECT session_id, pos AS unit_pos, [prev_view_ev, ev] AS events
FROM o WHERE ts = prev_view_ts AND (seq < prev_view_seq
    OR (seq = prev_view_seq AND (sub < prev_view_sub
        OR (sub = prev_view_sub AND eid < prev_view_eid))))
