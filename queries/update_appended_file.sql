-- A followed file's new lines imported: its digest, size and counts now.
UPDATE files SET sha256 = $sha256, size = $size, records = $records, imported = $imported,
    skipped = $skipped, rejected = $rejected, duplicates = $duplicates, events = $events,
    skipped_by_reason = $skipped_by_reason, imported_at = now()
WHERE file_id = $file_id
