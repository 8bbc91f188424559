-- The corpus counts of AUDITS.md from an audit cache table (TABLE marker): sums of the
-- per-session counts; sessions is the number of rows.
SELECT
    coalesce(sum(events), 0)::BIGINT AS events,
    count(*) AS sessions,
    coalesce(sum(turns), 0)::BIGINT AS turns,
    coalesce(sum(calls), 0)::BIGINT AS calls,
    coalesce(sum(results), 0)::BIGINT AS results,
    coalesce(sum(duplicates), 0)::BIGINT AS duplicates,
    coalesce(sum(event_id_conflicts), 0)::BIGINT AS event_id_conflicts,
    coalesce(sum(shared_keys), 0)::BIGINT AS shared_keys,
    coalesce(sum(orphan_results), 0)::BIGINT AS orphan_results,
    coalesce(sum(dangling_calls), 0)::BIGINT AS dangling_calls,
    coalesce(sum(mispair), 0)::BIGINT AS mispair,
    coalesce(sum(duplicate_call_ids), 0)::BIGINT AS duplicate_call_ids,
    coalesce(sum(tie_inversions), 0)::BIGINT AS tie_inversions,
    coalesce(sum(clock_regressions), 0)::BIGINT AS clock_regressions,
    coalesce(sum(ts_ties), 0)::BIGINT AS ts_ties,
    coalesce(sum(collapsed_keys), 0)::BIGINT AS collapsed_keys,
    coalesce(sum(turn_collisions), 0)::BIGINT AS turn_collisions
FROM /*TABLE*/
