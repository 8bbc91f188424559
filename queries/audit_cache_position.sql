-- Where the session $session_id stands in the session list (the KEYED marker holds
-- audit_cache_keyed.sql) sorted and filtered as in audit_cache_block.sql: how many shown
-- sessions come before it. No row when the list does not show it.
WITH shown AS (
    SELECT session_id, key FROM (/*KEYED*/)
    WHERE contains(lower(session_id), lower($text)) AND (has_findings OR NOT $only_findings)
)
SELECT (SELECT count(*) FROM shown WHERE shown.key < target.key) AS position
FROM shown AS target
WHERE target.session_id = $session_id
