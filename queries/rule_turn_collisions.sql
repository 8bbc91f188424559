-- Rule turn_collisions (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each (session, logged turn) of more than one
-- user_id, with every event of it.
SELECT o.session_id, min(pos) AS unit_pos, list(ev ORDER BY pos) AS events
FROM o SEMI JOIN collided_turns USING (session_id, turn) GROUP BY o.session_id, o.turn
