-- Rule missing_child (a fragment over audit_relations.sql, one row per unit counted:
-- session_id, unit_pos, events): each CALL that started a sub-agent whose session is absent.
-- The reader names the child session of a call in its raw, turnscope.subagent_session
-- (explorer.formats.claude_code: a Claude Code Task); the child is present when any event of
-- the database has that session_id (main.events: a batched build names its own batch
-- `events`, batch_relations.sql, and the child may sit in another batch).
SELECT o.session_id, o.pos AS unit_pos, [o.ev] AS events
FROM o JOIN event_details d USING (eid)
WHERE o.kind = 'CALL' AND contains(d.raw, '"subagent_session"')
  AND json_extract_string(d.raw, '$.turnscope.subagent_session') IS NOT NULL
  AND json_extract_string(d.raw, '$.turnscope.subagent_session')
      NOT IN (SELECT DISTINCT session_id FROM main.events)
