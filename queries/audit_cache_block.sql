-- One block of the session list from an audit cache table (the KEYED marker holds
-- audit_cache_keyed.sql): the sessions whose id holds $text (any case; '' holds in every id)
-- and, when $only_findings, that have a finding; sorted by the key, skipping $skip rows, at
-- most $limit rows. The shown columns (LISTED marker: explorer.audits.cache.COLUMNS), then
-- has_findings.
SELECT /*LISTED*/, has_findings
FROM (/*KEYED*/)
WHERE contains(lower(session_id), lower($text)) AND (has_findings OR NOT $only_findings)
ORDER BY key
LIMIT $limit OFFSET $skip
