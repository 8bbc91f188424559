-- Earlier imports of a path, newest first, with their counts.
SELECT file_id, path, sha256, size, status, format, records, imported, skipped, rejected,
       duplicates, events, CAST(skipped_by_reason AS VARCHAR) AS skipped_by_reason, seq_assigned
FROM files WHERE path = $path ORDER BY file_id DESC
