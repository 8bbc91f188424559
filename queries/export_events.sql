-- Every event of one session (all sessions when $session_id is NULL) with the canonical
-- columns an export writes (FORMAT.md), sessions in import order, each in seq order.
SELECT
    session_id, seq, sub, ts, CAST(kind AS VARCHAR) AS kind, call_id, tool, text,
    CASE WHEN text IS NULL THEN cjk_chars + other_chars END AS chars,
    CASE WHEN text IS NULL THEN cjk_chars > 0 END AS cjk,
    tokens, user_id, turn, message_id, event_id, is_error, synthetic, branch, archived,
    parent_session, parent_call, note, raw
FROM events LEFT JOIN event_details USING (eid)
WHERE $session_id IS NULL OR session_id = $session_id
ORDER BY min(eid) OVER (PARTITION BY session_id), session_id, seq, sub, eid
