-- Drop the details of the copies too.
DELETE FROM event_details WHERE eid IN (SELECT eid FROM dups)
