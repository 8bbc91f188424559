-- The counts of AUDITS.md for every session, in the order being viewed (the ORDER
-- marker), plus distinct users and total cost. Sum the columns for the corpus counts.
-- The PAIRS marker holds fragment_call_pairs.sql.
WITH o AS (/*ORDERED*/),
pairs AS (/*PAIRS*/),
pairing AS (
    SELECT session_id,
        sum(n_results) FILTER (WHERE n_calls = 0) AS orphan_results,
        sum(n_calls) FILTER (WHERE n_results = 0) AS dangling_calls,
        count(*) FILTER (WHERE n_calls >= 2) AS duplicate_call_ids
    FROM pairs GROUP BY 1
),
mispairs AS (
    SELECT o.session_id, count(*) AS mispair
    FROM o JOIN pairs p ON o.session_id = p.session_id AND o.call_id = p.call_id
    WHERE o.kind = 'RESULT' AND o.pos < p.first_call
    GROUP BY 1
),
conflicts AS (
    SELECT session_id, count(*) AS event_id_conflicts
    FROM events SEMI JOIN conflicts USING (session_id, event_id)
    GROUP BY 1
),
collisions AS (
    SELECT session_id, count(*) AS turn_collisions
    FROM (SELECT session_id, turn FROM events WHERE turn IS NOT NULL
          GROUP BY ALL HAVING count(DISTINCT user_id) > 1)
    GROUP BY 1
),
users AS (
    SELECT session_id, count(*) AS users
    FROM (SELECT DISTINCT session_id, user_id FROM events WHERE user_id IS NOT NULL)
    GROUP BY 1
),
dups AS (
    -- The files the duplicates came from count for shared_keys: the same session read
    -- from two files is reported even when the second only repeats the first.
    SELECT session_id, count(*) AS duplicates,
        min(file_id) AS dup_min_file, max(file_id) AS dup_max_file
    FROM duplicates GROUP BY 1
),
per AS (
    SELECT session_id,
        count(*) AS events,
        count(*) FILTER (WHERE kind = 'USER') AS turns,
        count(*) FILTER (WHERE kind = 'CALL') AS calls,
        count(*) FILTER (WHERE kind = 'RESULT') AS results,
        count(*) FILTER (WHERE ts = prev_view_ts AND (seq < prev_view_seq
            OR (seq = prev_view_seq AND (sub < prev_view_sub
                OR (sub = prev_view_sub AND eid < prev_view_eid))))) AS tie_inversions,
        count(*) FILTER (WHERE ts < prev_seq_ts) AS clock_regressions,
        count(*) FILTER (WHERE ts = prev_seq_ts) AS ts_ties,
        min(file_id) AS min_file, max(file_id) AS max_file,
        coalesce(min(user_id) <> max(user_id), false) AS collapsed,
        sum(cost) AS cost
    FROM o GROUP BY 1
)
SELECT
    per.session_id, events, turns, calls, results,
    coalesce(duplicates, 0) AS duplicates,
    coalesce(event_id_conflicts, 0)::BIGINT AS event_id_conflicts,
    (least(min_file, dup_min_file) <> greatest(max_file, dup_max_file))::INTEGER AS shared_keys,
    coalesce(orphan_results, 0)::BIGINT AS orphan_results,
    coalesce(dangling_calls, 0)::BIGINT AS dangling_calls,
    coalesce(mispair, 0) AS mispair,
    coalesce(duplicate_call_ids, 0) AS duplicate_call_ids,
    tie_inversions, clock_regressions, ts_ties,
    collapsed::INTEGER AS collapsed_keys,
    coalesce(turn_collisions, 0) AS turn_collisions,
    coalesce(users, 0) AS users, cost::BIGINT AS cost
FROM per
LEFT JOIN pairing USING (session_id)
LEFT JOIN mispairs USING (session_id)
LEFT JOIN conflicts USING (session_id)
LEFT JOIN collisions USING (session_id)
LEFT JOIN dups USING (session_id)
LEFT JOIN users USING (session_id)
ORDER BY per.session_id
