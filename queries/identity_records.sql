-- The records of Claude Code files, one row per record (its uuid) and file, for the session
-- identity counts (explorer.audits.identity): where it was stored (file, first event), its
-- session and sessionId, its chain links (parentUuid, else logicalParentUuid: a compact
-- boundary continues the chain), its API message id, whether it answers a tool call, and
-- who wrote it (cwd, the user column). Records dropped as duplicates of one already kept
-- (a history replayed into the same session) come from the duplicates table, with their
-- file and the event kept. In import order.
WITH cc AS (
    SELECT file_id FROM files WHERE format = 'claude-code'
),
stored AS (
    SELECT e.file_id, e.eid, e.session_id, e.kind, e.seq, e.sub, e.call_id, e.user_id, d.raw,
           coalesce(json_extract_string(d.raw, '$.uuid'), e.event_id) AS uuid
    FROM events e JOIN event_details d USING (eid)
    WHERE e.file_id IN (SELECT file_id FROM cc) AND d.raw IS NOT NULL
),
records AS (
    SELECT file_id, uuid, min(eid) AS eid, any_value(session_id) AS session_id,
           arg_min(raw, eid) AS raw, any_value(user_id) AS user_id
    FROM stored WHERE uuid IS NOT NULL
    GROUP BY file_id, uuid
)
SELECT file_id, uuid, eid, session_id,
       json_extract_string(raw, '$.sessionId') AS source_session,
       coalesce(json_extract_string(raw, '$.parentUuid'),
                json_extract_string(raw, '$.logicalParentUuid')) AS parent,
       json_extract_string(raw, '$.message.id') AS message_id,
       coalesce(contains(json_extract(raw, '$.message.content')::VARCHAR, '"tool_result"'), false)
           AS answers_call,
       json_extract_string(raw, '$.cwd') AS cwd, user_id, false AS dropped
FROM records
UNION ALL
SELECT DISTINCT d.file_id, d.event_id, d.kept_eid, d.session_id, NULL, NULL, NULL, false,
       NULL, NULL, true
FROM duplicates d
WHERE d.file_id IN (SELECT file_id FROM cc)
ORDER BY eid, file_id
