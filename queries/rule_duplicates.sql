-- Rule duplicates (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each row dropped as a copy of an imported event.
SELECT session_id, line AS unit_pos,
    [{'seq': seq, 'sub': sub, 'kind': CAST(kind AS VARCHAR), 'call_id': call_id}] AS events
FROM duplicates
