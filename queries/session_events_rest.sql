-- The rest of one session's events once its tree is read (explorer.session.data.load_session
-- after load_tree): the EVENTS marker holds session_events.sql without its texts. Only what
-- the preview, the cost curve and the replay compute from is read, compact (issue 13: a
-- string column costs 16 bytes an event even when null, 48 MB for 3M events): pos (the rows
-- are checked to be the same), the characters, the costs' source as an enum, the logged
-- turn, the flags (is_error: the tree's row says an error), and the user and message ids as numbers (equal ids, equal numbers). The
-- detail reads the other columns of the one event it shows (queries/event_fields.sql), the
-- marks theirs when a rule has found something (queries/session_events_marks.sql).
SELECT pos, CAST(text_chars AS INTEGER) AS text_chars, chars, cjk, tokens, estimated,
    CAST(cost_source AS ENUM ('tokens', 'tokenizer', 'ratios')) AS cost_source,
    turn, is_error, archived, synthetic, branch IS NOT NULL AS branched,
    CASE WHEN user_id IS NOT NULL THEN CAST(dense_rank() OVER (ORDER BY user_id) AS INTEGER)
    END AS user_key,
    CASE WHEN message_id IS NOT NULL THEN
        CAST(dense_rank() OVER (ORDER BY message_id) AS INTEGER) END AS message_key
FROM (/*EVENTS*/)
ORDER BY pos
