-- The widest value of every column of an audit cache table (TABLE marker), to size the
-- columns without reading every row: the longest session id, the largest of each count
-- (counts are never negative).
SELECT
    arg_max(session_id, length(session_id)) AS session_id,
    max(events) AS events,
    max(turns) AS turns,
    max(calls) AS calls,
    max(results) AS results,
    max(duplicates) AS duplicates,
    max(event_id_conflicts) AS event_id_conflicts,
    max(shared_keys) AS shared_keys,
    max(orphan_results) AS orphan_results,
    max(dangling_calls) AS dangling_calls,
    max(mispair) AS mispair,
    max(duplicate_call_ids) AS duplicate_call_ids,
    max(tie_inversions) AS tie_inversions,
    max(clock_regressions) AS clock_regressions,
    max(ts_ties) AS ts_ties,
    max(collapsed_keys) AS collapsed_keys,
    max(turn_collisions) AS turn_collisions,
    max(users) AS users,
    max(cost) AS cost
FROM /*TABLE*/
