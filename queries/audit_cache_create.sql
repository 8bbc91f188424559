-- Materialise the per-session audit table of one order and one pair of token ratios (the
-- AUDIT marker holds session_audit.sql) into the table at the TABLE marker (a name from
-- explorer.audits.cache only): every column of session_audit; has_findings, whether any
-- finding count is above zero; and for every column c its rank_c, the row's place (0, 1,
-- 2 ...) when sorted by c then session_id, so that any sort of the list is ORDER BY one
-- integer (descending is its exact reverse). Every column of session_audit is non-NULL.
-- Rows are stored in session_id order.
CREATE OR REPLACE TABLE /*TABLE*/ AS
SELECT a.*,
    greatest(duplicates, event_id_conflicts, shared_keys, orphan_results, dangling_calls,
             mispair, duplicate_call_ids, tie_inversions, clock_regressions, ts_ties,
             collapsed_keys, turn_collisions) > 0 AS has_findings,
    (row_number() OVER (ORDER BY session_id) - 1)::INTEGER AS rank_session_id,
    (row_number() OVER (ORDER BY events, session_id) - 1)::INTEGER AS rank_events,
    (row_number() OVER (ORDER BY turns, session_id) - 1)::INTEGER AS rank_turns,
    (row_number() OVER (ORDER BY calls, session_id) - 1)::INTEGER AS rank_calls,
    (row_number() OVER (ORDER BY results, session_id) - 1)::INTEGER AS rank_results,
    (row_number() OVER (ORDER BY duplicates, session_id) - 1)::INTEGER AS rank_duplicates,
    (row_number() OVER (ORDER BY event_id_conflicts, session_id) - 1)::INTEGER
        AS rank_event_id_conflicts,
    (row_number() OVER (ORDER BY shared_keys, session_id) - 1)::INTEGER AS rank_shared_keys,
    (row_number() OVER (ORDER BY orphan_results, session_id) - 1)::INTEGER
        AS rank_orphan_results,
    (row_number() OVER (ORDER BY dangling_calls, session_id) - 1)::INTEGER
        AS rank_dangling_calls,
    (row_number() OVER (ORDER BY mispair, session_id) - 1)::INTEGER AS rank_mispair,
    (row_number() OVER (ORDER BY duplicate_call_ids, session_id) - 1)::INTEGER
        AS rank_duplicate_call_ids,
    (row_number() OVER (ORDER BY tie_inversions, session_id) - 1)::INTEGER
        AS rank_tie_inversions,
    (row_number() OVER (ORDER BY clock_regressions, session_id) - 1)::INTEGER
        AS rank_clock_regressions,
    (row_number() OVER (ORDER BY ts_ties, session_id) - 1)::INTEGER AS rank_ts_ties,
    (row_number() OVER (ORDER BY collapsed_keys, session_id) - 1)::INTEGER
        AS rank_collapsed_keys,
    (row_number() OVER (ORDER BY turn_collisions, session_id) - 1)::INTEGER
        AS rank_turn_collisions,
    (row_number() OVER (ORDER BY users, session_id) - 1)::INTEGER AS rank_users,
    (row_number() OVER (ORDER BY cost, session_id) - 1)::INTEGER AS rank_cost
FROM (/*AUDIT*/) AS a
ORDER BY session_id
