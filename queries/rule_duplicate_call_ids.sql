-- Rule duplicate_call_ids (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each (session, call id) of two or more CALLs, with
-- every CALL and RESULT of that id.
SELECT o.session_id, min(pos) AS unit_pos, list(ev ORDER BY pos) AS events
FROM o JOIN pairs p USING (session_id, call_id)
WHERE p.n_calls >= 2 AND o.kind IN ('CALL', 'RESULT') GROUP BY o.session_id, o.call_id
