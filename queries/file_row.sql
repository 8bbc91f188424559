-- One imported file by its id, with its counts.
SELECT file_id, path, sha256, status, format, records, imported, skipped, rejected,
       duplicates, events, CAST(skipped_by_reason AS VARCHAR) AS skipped_by_reason, seq_assigned
FROM files WHERE file_id = $file_id
