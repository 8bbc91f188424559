-- The record types a reader did not know in one imported file (events with note
-- 'unknown type: X', format drift), with how many records of each, most frequent first.
SELECT substr(d.note, 15) AS type, count(*) AS records
FROM events e JOIN event_details d USING (eid)
WHERE e.file_id = $file_id AND d.note LIKE 'unknown type: %'
GROUP BY 1 ORDER BY records DESC, type
