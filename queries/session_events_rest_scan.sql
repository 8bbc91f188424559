-- The rest of one session's events once its tree is read in append order (the columns of
-- session_events_rest.sql but user_id and message_id, and eid): read as stored, in no set
-- order and with no window, as session_events_tree_scan.sql reads the tree's (the reader
-- puts the rows in the tree's order by eid and numbers the ids itself:
-- explorer.tokens.session_events.rest_in_seq_order). A session of 3M events: the window and
-- the two dense ranks of session_events_rest.sql took 3.9 s. The cost's source is
-- session_events.sql's (the BPE and BPEJOIN markers: explorer.model.CostSettings).
SELECT eid, CAST(coalesce(length(text), 0) AS INTEGER) AS text_chars,
    CASE WHEN text IS NULL THEN cjk_chars + other_chars END AS chars,
    CASE WHEN text IS NULL THEN cjk_chars > 0 END AS cjk,
    tokens, tokens IS NULL AS estimated,
    CAST(CASE WHEN tokens IS NOT NULL THEN 'tokens' WHEN /*BPE*/ IS NOT NULL THEN 'tokenizer'
         ELSE 'ratios' END AS ENUM ('tokens', 'tokenizer', 'ratios')) AS cost_source,
    turn, is_error, archived, synthetic, branch IS NOT NULL AS branched, user_id, message_id
FROM events LEFT JOIN event_details USING (eid) /*BPEJOIN*/
WHERE session_id = $session_id
