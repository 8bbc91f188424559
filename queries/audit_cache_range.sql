-- Rows of the unfiltered session list straight from the keys (the KEYED marker holds
-- audit_cache_keyed.sql): the sessions whose key lies between $low and $high, in key order.
-- The key is the row's place, so there is nothing to skip. Columns as in audit_cache_block.sql.
SELECT /*LISTED*/, has_findings
FROM (/*KEYED*/)
WHERE key BETWEEN $low AND $high
ORDER BY key
