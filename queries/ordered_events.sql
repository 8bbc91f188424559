-- Every event with its position in the order being viewed (pos; the ORDER marker holds the
-- sort key), the timestamp and append key of the event before it in that order, the
-- timestamp of the previous timestamped event in append order (seq, sub, import position:
-- the PREV marker, prev_event_columns.sql),
-- and its cost (FORMAT.md; the BPE and BPEJOIN markers bring a real tokenizer's count in,
-- explorer.model.CostSettings). Base relation of the audits. The EV marker names an event
-- as its finding does (explorer.audits.rule_sql): ev, prev_view_ev (the event before in the
-- order being viewed) and prev_seq_ev (the timestamped event before in append order) are
-- computed in the same two windows, so the audits sort the events once per window (in seq
-- order both windows are the same, and DuckDB sorts once).
SELECT
    eid, file_id, line, session_id, seq, sub, ts, kind, call_id, user_id, turn, event_id,
    /*EV*/ AS ev,
    row_number() OVER v AS pos,
    /*PREV*/,
    coalesce(tokens, /*BPE*/, floor(cjk_chars / $cjk_ratio + other_chars / $other_ratio + 0.5)::BIGINT) AS cost
FROM events /*BPEJOIN*/
WINDOW v AS (PARTITION BY session_id ORDER BY /*ORDER*/),
       s AS (PARTITION BY session_id ORDER BY seq, sub, eid)
