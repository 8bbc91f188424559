-- An audit cache table (TABLE marker) with each session's sort key: the rank of the column
-- named $sort times $sign (1 ascending, -1 descending). The ranks are the rows' places, so a
-- key is also where the row stands in the unfiltered list. Read by the list's statements.
SELECT *, CASE $sort
        WHEN 'session_id' THEN rank_session_id
        WHEN 'events' THEN rank_events
        WHEN 'turns' THEN rank_turns
        WHEN 'calls' THEN rank_calls
        WHEN 'results' THEN rank_results
        WHEN 'duplicates' THEN rank_duplicates
        WHEN 'event_id_conflicts' THEN rank_event_id_conflicts
        WHEN 'shared_keys' THEN rank_shared_keys
        WHEN 'orphan_results' THEN rank_orphan_results
        WHEN 'dangling_calls' THEN rank_dangling_calls
        WHEN 'mispair' THEN rank_mispair
        WHEN 'duplicate_call_ids' THEN rank_duplicate_call_ids
        WHEN 'tie_inversions' THEN rank_tie_inversions
        WHEN 'clock_regressions' THEN rank_clock_regressions
        WHEN 'ts_ties' THEN rank_ts_ties
        WHEN 'collapsed_keys' THEN rank_collapsed_keys
        WHEN 'turn_collisions' THEN rank_turn_collisions
        WHEN 'users' THEN rank_users
        WHEN 'cost' THEN rank_cost
    END * $sign AS key
FROM /*TABLE*/
