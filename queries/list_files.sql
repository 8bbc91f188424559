-- The imported files, in import order.
SELECT file_id, path, sha256, size, format, records, imported, rejected, duplicates, events,
       seq_assigned, status
FROM files ORDER BY file_id
