-- The imported files, in import order, with the record types their readers did not know
-- (unknown_types: a JSON object type -> events with note 'unknown type: X', format drift).
WITH unknown AS (
    SELECT file_id, CAST(json_group_object(type, n) AS VARCHAR) AS unknown_types
    FROM (SELECT e.file_id, substr(d.note, 15) AS type, count(*) AS n
          FROM event_details d JOIN events e USING (eid)
          WHERE d.note LIKE 'unknown type: %' GROUP BY ALL)
    GROUP BY file_id
)
SELECT file_id, path, sha256, size, format, records, imported, skipped, rejected, duplicates,
       events, CAST(skipped_by_reason AS VARCHAR) AS skipped_by_reason, seq_assigned, status,
       coalesce(u.unknown_types, '{}') AS unknown_types
FROM files LEFT JOIN unknown u USING (file_id) ORDER BY file_id
