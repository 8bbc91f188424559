-- Skipped records of the file just staged, by reason, most frequent first.
SELECT skipped, count(*) AS records FROM record_rows WHERE skipped IS NOT NULL
GROUP BY skipped ORDER BY records DESC, skipped
