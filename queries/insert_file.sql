-- Record an imported file and its counts.
INSERT INTO files VALUES ($file_id, $path, $sha256, $size, $format, $records, $imported,
                          $rejected, $duplicates, $events, $seq_assigned, now(), $status)
