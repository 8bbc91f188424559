-- Record an imported file and its counts.
INSERT INTO files VALUES ($file_id, $path, $sha256, $size, $format, $records, $imported,
                          $skipped, $rejected, $duplicates, $events, $skipped_by_reason,
                          $seq_assigned, now(), $status)
