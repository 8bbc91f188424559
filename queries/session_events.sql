-- One session's events in the order being viewed (the ORDER marker): position, derived turn
-- (turn-opening USER events counted so far: a USER with a note opens none; 0 is the preamble), cost and where it comes from (the
-- writer's tokens, the tokenizer count of the BPE marker, or the ratios), and the pairing
-- of AUDITS.md: for a RESULT the position of the nearest earlier CALL of its id, for a
-- CALL the position of the nearest later RESULT of its id (NULL when there is none, or
-- when the event has no id). The TEXT marker adds the bulky columns (text, raw); without
-- them the session is read narrow (the window fetches texts for the rows it shows,
-- explorer.session.event_texts); text_chars is the text's length in code points either way.
-- Positions and turn numbers are 32-bit (explorer.tokens.session_events.POSITION: a session
-- of 3M events holds 12 MB less per column; a session has fewer than 2**31 events).
WITH v AS (
    SELECT *,
        CAST(row_number() OVER w AS INTEGER) AS pos,
        CAST(sum(CASE WHEN kind = 'USER' AND note IS NULL THEN 1 ELSE 0 END) OVER w AS INTEGER) AS turn_no,
        coalesce(tokens, /*BPE*/, floor(cjk_chars / $cjk_ratio + other_chars / $other_ratio + 0.5)::BIGINT) AS cost,
        tokens IS NULL AS estimated,
        CASE WHEN tokens IS NOT NULL THEN 'tokens' WHEN /*BPE*/ IS NOT NULL THEN 'tokenizer'
             ELSE 'ratios' END AS cost_source
    FROM events LEFT JOIN event_details USING (eid) /*BPEJOIN*/
    WHERE session_id = $session_id
    WINDOW w AS (ORDER BY /*ORDER*/ ROWS UNBOUNDED PRECEDING)
)
SELECT
    pos, turn_no, eid, file_id, line, seq, sub, ts, kind, call_id, tool, /*TEXT*/
    coalesce(length(text), 0) AS text_chars,
    CASE WHEN text IS NULL THEN cjk_chars + other_chars END AS chars,
    CASE WHEN text IS NULL THEN cjk_chars > 0 END AS cjk,
    tokens, cost, estimated, cost_source, user_id, turn, message_id, event_id, is_error, synthetic, branch,
    archived, note, parent_session, parent_call,
    CASE WHEN kind = 'RESULT' AND call_id IS NOT NULL THEN
        max(CASE WHEN kind = 'CALL' THEN pos END) OVER (
            PARTITION BY call_id ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    END AS call_pos,
    CASE WHEN kind = 'CALL' AND call_id IS NOT NULL THEN
        min(CASE WHEN kind = 'RESULT' THEN pos END) OVER (
            PARTITION BY call_id ORDER BY pos ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
    END AS result_pos
FROM v
ORDER BY pos
