-- Where each thinking block sits in the turn tree (explorer.session.turn_tree): for every
-- OTHER event with note 'thinking' of one session (the EVENTS marker holds
-- session_events.sql without its texts), the position of the event of the assistant message
-- it belongs to: the message's first ASSISTANT event in the same turn (same message_id),
-- else that message's first CALL there, else (no message_id, or the message has no such
-- event in the turn) the next ASSISTANT or CALL event of the turn; NULL when there is none.
SELECT pos, coalesce(same_text, same_call, next_one) AS owner_pos
FROM (
    SELECT pos, kind,
        CASE WHEN message_id IS NOT NULL THEN
            min(CASE WHEN kind = 'ASSISTANT' THEN pos END) OVER m END AS same_text,
        CASE WHEN message_id IS NOT NULL THEN
            min(CASE WHEN kind = 'CALL' THEN pos END) OVER m END AS same_call,
        min(CASE WHEN kind <> 'OTHER' THEN pos END) OVER (
            PARTITION BY turn_no ORDER BY pos ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING
        ) AS next_one
    FROM (/*EVENTS*/)
    WHERE kind IN ('ASSISTANT', 'CALL') OR (kind = 'OTHER' AND note = 'thinking')
    WINDOW m AS (PARTITION BY turn_no, message_id)
)
WHERE kind = 'OTHER'
ORDER BY pos
