-- One session's events as the turn tree needs them first, in append order (seq, sub, eid:
-- explorer.tokens.session_events.tree_in_seq_order): the tree's columns and the cost, read
-- as stored, in no set order and with no window; the reader numbers the rows (pos) and their
-- turns itself, and sorts them only when they are not in order already. A session of 3M
-- events: 0.7 CPU-s instead of 5 for session_events_tree.sql, whose window sorts every row
-- with its columns (and spilled them under the tree's memory limit). The cost is
-- session_events.sql's (the BPE and BPEJOIN markers: explorer.model.CostSettings).
SELECT eid, seq, sub, kind, call_id, tool, note,
    coalesce(tokens, /*BPE*/, floor(cjk_chars / $cjk_ratio + other_chars / $other_ratio + 0.5)::BIGINT) AS cost
FROM events LEFT JOIN event_details USING (eid) /*BPEJOIN*/
WHERE session_id = $session_id
