-- The imported files, in import order.
SELECT file_id, path, sha256, size, format, records, imported, skipped, rejected, duplicates,
       events, CAST(skipped_by_reason AS VARCHAR) AS skipped_by_reason, seq_assigned, status
FROM files ORDER BY file_id
