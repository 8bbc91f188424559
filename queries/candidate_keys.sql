-- Hashes of the (session_id, event_id) keys that occur more than once in the file being
-- imported: the only rows of it that can be copies of one another. Computed from the
-- input (invalid rows included: a superset is safe), which scans faster than the table.
CREATE OR REPLACE TEMP TABLE cand AS
SELECT hash(session_id, event_id) AS key_hash
FROM (/*TYPED*/) WHERE event_id IS NOT NULL
GROUP BY 1 HAVING count(*) > 1
