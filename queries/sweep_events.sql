-- Every event of the corpus for the sweep, in no particular order: session number,
-- 0-based position in the order being viewed (the ORDER marker holds its sort key), kind
-- code, cost (FORMAT.md), and hashed keys: (session, call id) for CALL/RESULT events with
-- an id, (session, user) and (session, turn) where user_id / turn are given (AUDITS.md key
-- collapse), the message_id (framework strategies count messages) and the archived flag. The caller places each row at offset(session) + pos: no final sort is needed.
WITH numbered AS (
    SELECT session_id, row_number() OVER (ORDER BY session_id) - 1 AS session_no
    FROM (SELECT DISTINCT session_id FROM events)
)
SELECT n.session_no, e.eid,
    row_number() OVER (PARTITION BY e.session_id ORDER BY /*ORDER*/) - 1 AS pos,
    CAST(enum_code(e.kind) AS TINYINT) AS kind,
    coalesce(e.tokens, /*BPE*/, floor(e.cjk_chars / $cjk_ratio + e.other_chars / $other_ratio + 0.5)::BIGINT) AS cost,
    CASE WHEN e.call_id IS NOT NULL AND e.kind IN ('CALL', 'RESULT')
         THEN hash(e.session_id, e.call_id) END AS call_key,
    CASE WHEN e.user_id IS NOT NULL THEN hash(e.session_id, e.user_id) END AS user_key,
    CASE WHEN e.message_id IS NOT NULL THEN hash(e.message_id) END AS message_key,
    e.eid IN (SELECT eid FROM event_details WHERE archived) AS archived,
    CASE WHEN e.user_id IS NOT NULL AND e.turn IS NOT NULL
         THEN hash(e.session_id, e.turn) END AS turn_key
FROM events e JOIN numbered n USING (session_id) /*BPEJOIN*/
