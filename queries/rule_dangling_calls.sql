-- Rule dangling_calls (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each CALL whose call id no RESULT of its session has.
SELECT o.session_id, pos AS unit_pos, [ev] AS events
FROM o JOIN pairs p USING (session_id, call_id) WHERE o.kind = 'CALL' AND p.n_results = 0
