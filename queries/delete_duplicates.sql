-- Drop the copies from the events: they count only in duplicates (AUDITS.md).
DELETE FROM events WHERE eid IN (SELECT eid FROM dups)
