-- Rule orphan_results (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each RESULT whose call id no CALL of its session has.
SELECT o.session_id, pos AS unit_pos, [ev] AS events
FROM o JOIN pairs p USING (session_id, call_id) WHERE o.kind = 'RESULT' AND p.n_calls = 0
