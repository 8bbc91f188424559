-- Every event of the corpus for the sweep, in no particular order (sweep_order places each
-- row by its eid): kind code, cost (FORMAT.md), and hashed keys: (session, call id) for
-- CALL/RESULT events with an id, (session, user) and (session, turn) where user_id / turn
-- are given (AUDITS.md key collapse), the message_id (framework strategies count messages),
-- and the archived flag. NULL keys stay NULL: the caller reads their validity.
SELECT e.eid,
    -- a USER with a note opens no turn (FORMAT.md): the code after the enum's (compaction.log NOTED)
    CAST(CASE WHEN e.kind = 'USER' AND e.eid IN (SELECT eid FROM event_details WHERE note IS NOT NULL)
              THEN 7 ELSE enum_code(e.kind) END AS TINYINT) AS kind,
    coalesce(e.tokens, /*BPE*/, floor(e.cjk_chars / $cjk_ratio + e.other_chars / $other_ratio + 0.5)::BIGINT) AS cost,
    CASE WHEN e.call_id IS NOT NULL AND e.kind IN ('CALL', 'RESULT')
         THEN hash(e.session_id, e.call_id) END AS call_key,
    CASE WHEN e.user_id IS NOT NULL THEN hash(e.session_id, e.user_id) END AS user_key,
    CASE WHEN e.message_id IS NOT NULL THEN hash(e.message_id) END AS message_key,
    e.eid IN (SELECT eid FROM event_details WHERE archived) AS archived,
    CASE WHEN e.user_id IS NOT NULL AND e.turn IS NOT NULL
         THEN hash(e.session_id, e.turn) END AS turn_key
FROM events e /*BPEJOIN*/
