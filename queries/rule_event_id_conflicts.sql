-- Rule event_id_conflicts (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each event sharing its event_id with an event of
-- different content in its session.
SELECT session_id, pos AS unit_pos, [ev] AS events
FROM o SEMI JOIN conflicts USING (session_id, event_id)
