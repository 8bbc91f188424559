-- Valid rows of the file being imported that repeat an event kept already in their session,
-- or an earlier row of the file (same event_id and the same kind, call_id, tool, text,
-- chars, cjk, tokens: chars and cjk are compared as the code-point counts they give): the
-- first in import order is kept (FORMAT.md). Found before the rows are inserted, so that a
-- copy is never inserted (insert_events.sql leaves out these eids): a DELETE of rows the
-- transaction appended makes DuckDB rewrite every row it appended at COMMIT. Only rows
-- whose key hash is in cand (candidate_keys*.sql) are compared. A row's eid and seq are
-- the ones insert_events.sql gives it (the SEQ marker over the same valid rows).
-- Two events of the same text have the same counts (insert_events.sql derives them from
-- it); without text the counts are those of chars and cjk, as insert_events.sql says.
CREATE OR REPLACE TEMP TABLE dups AS
WITH new AS (
    SELECT $eid_base + row_no AS eid, line, session_id, /*SEQ*/ AS seq, sub, kind, call_id,
           tool, text, chars, cjk, tokens, event_id
    FROM (/*TYPED*/)
    WHERE reason IS NULL AND (seq_given OR $assign_seq)
),
keyed AS (
    SELECT eid, $file_id AS file_id, line, session_id, event_id, seq, sub, kind, call_id,
           tool, text,
           CASE WHEN text IS NULL THEN CASE WHEN cjk THEN chars ELSE 0 END END AS cjk_chars,
           CASE WHEN text IS NULL THEN CASE WHEN cjk THEN 0 ELSE coalesce(chars, 0) END
                END AS other_chars,
           tokens
    FROM new
    WHERE event_id IS NOT NULL AND hash(session_id, event_id) IN (SELECT key_hash FROM cand)
    UNION ALL
    SELECT e.eid, e.file_id, e.line, e.session_id, e.event_id, e.seq, e.sub, e.kind,
           e.call_id, e.tool, d.text,
           CASE WHEN d.text IS NULL THEN e.cjk_chars END,
           CASE WHEN d.text IS NULL THEN e.other_chars END,
           e.tokens
    FROM events e LEFT JOIN event_details d USING (eid)
    WHERE e.event_id IS NOT NULL AND hash(e.session_id, e.event_id) IN (SELECT key_hash FROM cand)
),
firsts AS (
    SELECT *, min(eid) OVER (PARTITION BY session_id, event_id, kind, call_id, tool, text,
                                          cjk_chars, other_chars, tokens) AS kept_eid
    FROM keyed
)
SELECT eid, kept_eid, file_id, line, session_id, event_id, seq, sub, kind, call_id
FROM firsts WHERE eid <> kept_eid AND eid >= $eid_base
