-- One row per unit counted by AUDITS.md (rule, session_id, events as a JSON list of
-- {seq, sub, kind, call_id}), in the order being viewed (the ORDERED marker), rule by rule;
-- the PAIRS marker holds fragment_call_pairs.sql.
WITH o AS (
    SELECT *, lag(ev) OVER w AS prev_view_ev
    FROM (SELECT *, {'seq': seq, 'sub': sub, 'kind': CAST(kind AS VARCHAR), 'call_id': call_id} AS ev
          FROM (/*ORDERED*/))
    WINDOW w AS (PARTITION BY session_id ORDER BY pos)
),
timed AS (
    SELECT session_id, seq, sub, eid, ts, ev,
        lag(ts) OVER s AS prev_ts, lag(ev) OVER s AS prev_ev
    FROM o WHERE ts IS NOT NULL
    WINDOW s AS (PARTITION BY session_id ORDER BY seq, sub, eid)
),
pairs AS (/*PAIRS*/),
collided_turns AS (
    SELECT session_id, turn FROM events WHERE turn IS NOT NULL
    GROUP BY ALL HAVING count(DISTINCT user_id) > 1
),
units AS (
    SELECT 1 AS r, 'duplicates' AS rule, session_id, line AS unit_pos,
        [{'seq': seq, 'sub': sub, 'kind': CAST(kind AS VARCHAR), 'call_id': call_id}] AS events
    FROM duplicates
    UNION ALL
    SELECT 2, 'event_id_conflicts', session_id, pos, [ev]
    FROM o SEMI JOIN conflicts USING (session_id, event_id)
    UNION ALL
    -- The first event of each file, kept or (for a file that only repeated it) duplicate.
    SELECT 3, 'shared_keys', session_id, min(pos), list(ev ORDER BY file_id)
    FROM (SELECT *, count(*) OVER (PARTITION BY session_id) AS nf
          FROM (SELECT session_id, file_id, min(pos) AS pos, arg_min(ev, pos) AS ev
                FROM o GROUP BY ALL
                UNION ALL
                SELECT session_id, file_id, NULL, arg_min(
                    {'seq': seq, 'sub': sub, 'kind': CAST(kind AS VARCHAR), 'call_id': call_id}, line)
                FROM duplicates d
                WHERE NOT EXISTS (SELECT 1 FROM events e
                                  WHERE e.session_id = d.session_id AND e.file_id = d.file_id)
                GROUP BY ALL))
    WHERE nf > 1 GROUP BY session_id
    UNION ALL
    SELECT 4, 'orphan_results', o.session_id, pos, [ev]
    FROM o JOIN pairs p USING (session_id, call_id) WHERE o.kind = 'RESULT' AND p.n_calls = 0
    UNION ALL
    SELECT 5, 'dangling_calls', o.session_id, pos, [ev]
    FROM o JOIN pairs p USING (session_id, call_id) WHERE o.kind = 'CALL' AND p.n_results = 0
    UNION ALL
    SELECT 6, 'mispair', o.session_id, pos, [ev]
    FROM o JOIN pairs p USING (session_id, call_id) WHERE o.kind = 'RESULT' AND o.pos < p.first_call
    UNION ALL
    SELECT 7, 'duplicate_call_ids', o.session_id, min(pos), list(ev ORDER BY pos)
    FROM o JOIN pairs p USING (session_id, call_id)
    WHERE p.n_calls >= 2 AND o.kind IN ('CALL', 'RESULT') GROUP BY o.session_id, o.call_id
    UNION ALL
    SELECT 8, 'tie_inversions', session_id, pos, [prev_view_ev, ev]
    FROM o WHERE ts = prev_view_ts AND (seq < prev_view_seq
        OR (seq = prev_view_seq AND (sub < prev_view_sub
            OR (sub = prev_view_sub AND eid < prev_view_eid))))
    UNION ALL
    SELECT 9, 'clock_regressions', session_id, eid, [prev_ev, ev] FROM timed WHERE ts < prev_ts
    UNION ALL
    SELECT 10, 'ts_ties', session_id, eid, [prev_ev, ev] FROM timed WHERE ts = prev_ts
    UNION ALL
    SELECT 11, 'collapsed_keys', session_id, min(pos), list(ev ORDER BY pos)
    FROM (SELECT session_id, pos, ev, count(DISTINCT user_id) OVER (PARTITION BY session_id) AS nu,
                 row_number() OVER (PARTITION BY session_id, user_id ORDER BY pos) AS rn
          FROM o WHERE user_id IS NOT NULL)
    WHERE nu > 1 AND rn = 1 GROUP BY session_id
    UNION ALL
    SELECT 12, 'turn_collisions', o.session_id, min(pos), list(ev ORDER BY pos)
    FROM o SEMI JOIN collided_turns USING (session_id, turn) GROUP BY o.session_id, o.turn
)
SELECT rule, session_id, CAST(to_json(events) AS VARCHAR) AS events
FROM units ORDER BY r, session_id, unit_pos
