-- Fragment (embedded at the PAIRS marker, over a relation o of ordered events): per
-- session and call id, how many CALLs and RESULTs carry it and where its first CALL is.
-- Events without an id pair with nothing (AUDITS.md) and are left out.
SELECT session_id, call_id,
    count(*) FILTER (WHERE kind = 'CALL') AS n_calls,
    count(*) FILTER (WHERE kind = 'RESULT') AS n_results,
    min(pos) FILTER (WHERE kind = 'CALL') AS first_call
FROM o
WHERE call_id IS NOT NULL AND kind IN ('CALL', 'RESULT')
GROUP BY ALL
