-- The key-collapse view (AUDITS.md "Key collapse"; explorer.audits.key_collapse): for each
-- storage key (session_id) holding events of more than one user_id (a collapsed_keys
-- session), one row per user_id sharing it: its events, the logged turns it wrote, those
-- of them that another user_id of the key logged too (its part of turn_collisions), the
-- input files its events came from, and its first event in append order (seq, sub) as a
-- finding names one. Null user_ids and null logged turns are ignored, as in AUDITS.md.
WITH u AS (
    SELECT session_id, user_id, turn, file_id, seq, sub, kind, call_id
    FROM events WHERE user_id IS NOT NULL
), shared AS (
    SELECT session_id FROM u GROUP BY session_id HAVING count(DISTINCT user_id) > 1
), collided AS (
    SELECT session_id, turn FROM u WHERE turn IS NOT NULL
    GROUP BY session_id, turn HAVING count(DISTINCT user_id) > 1
)
SELECT u.session_id, u.user_id, count(*) AS events,
    coalesce(list(DISTINCT u.turn ORDER BY u.turn) FILTER (WHERE u.turn IS NOT NULL),
             []) AS turns,
    coalesce(list(DISTINCT u.turn ORDER BY u.turn) FILTER (WHERE c.turn IS NOT NULL),
             []) AS collided_turns,
    count(DISTINCT u.file_id) AS files,
    arg_min({'seq': u.seq, 'sub': u.sub, 'kind': CAST(u.kind AS VARCHAR),
             'call_id': u.call_id}, (u.seq, u.sub)) AS first
FROM u SEMI JOIN shared USING (session_id)
LEFT JOIN collided c ON c.session_id = u.session_id AND c.turn = u.turn
GROUP BY u.session_id, u.user_id
ORDER BY u.session_id, min(u.seq), u.user_id
