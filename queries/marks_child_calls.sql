-- The CALLs of one session that name a sub-agent session in their raw
-- (turnscope.subagent_session), for the missing_child marks (explorer.audits.marks): the
-- eid and raw that rule_missing_child.sql reads from event_details, and the child named.
SELECT d.eid, CAST(d.raw AS VARCHAR) AS raw,
    json_extract_string(d.raw, '$.turnscope.subagent_session') AS child
FROM events e JOIN event_details d USING (eid)
WHERE e.session_id = $session_id AND e.kind = 'CALL' AND contains(d.raw, '"subagent_session"')
