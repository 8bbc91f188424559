-- The sessions cut into batches of about $size events (a session is never cut: one bigger
-- than that is a batch of its own), in session_id order: each batch's first and last
-- session_id and its events. Sessions whose only rows are duplicates count too (their
-- findings are in the duplicates table).
SELECT min(session_id) AS lo, max(session_id) AS hi, sum(n)::BIGINT AS events
FROM (
    SELECT session_id, n,
        sum(n) OVER (ORDER BY session_id ROWS UNBOUNDED PRECEDING) - n AS before
    FROM (
        SELECT session_id, count(*) AS n
        FROM (SELECT session_id FROM events UNION ALL SELECT session_id FROM duplicates)
        GROUP BY session_id
    )
)
GROUP BY before // $size
ORDER BY lo
