-- The key of the session $session_id (the KEYED marker holds audit_cache_keyed.sql): its
-- place in the unfiltered list, counted from the end when descending. No row when the table
-- does not hold it.
SELECT key FROM (/*KEYED*/)
WHERE session_id = $session_id
