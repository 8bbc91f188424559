-- One block of the session list from an audit cache table (the KEYED marker holds
-- audit_cache_keyed.sql): the sessions whose id holds $text (any case; '' holds in every id)
-- and, when $only_findings, that have a finding; sorted by the key, skipping $skip rows, at
-- most $limit rows. The shown columns, then has_findings.
SELECT session_id, events, turns, calls, results, duplicates, event_id_conflicts, shared_keys,
    orphan_results, dangling_calls, mispair, duplicate_call_ids, tie_inversions,
    clock_regressions, ts_ties, collapsed_keys, turn_collisions, users, cost, has_findings
FROM (/*KEYED*/)
WHERE contains(lower(session_id), lower($text)) AND (has_findings OR NOT $only_findings)
ORDER BY key
LIMIT $limit OFFSET $skip
