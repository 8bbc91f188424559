-- Rule mispair (AUDITS.md; a fragment over audit_relations.sql, one row per unit counted:
-- session_id, unit_pos, events): each RESULT before every CALL of its call id in this order.
SELECT o.session_id, pos AS unit_pos, [ev] AS events
FROM o JOIN pairs p USING (session_id, call_id) WHERE o.kind = 'RESULT' AND o.pos < p.first_call
