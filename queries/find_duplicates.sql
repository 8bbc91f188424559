-- Events of the file just imported that repeat an event already kept in their session
-- (same event_id and the same kind, call_id, tool, text, chars, cjk, tokens: chars and cjk
-- are compared as the code-point counts they give): the first row in file order is kept
-- (FORMAT.md). Only rows whose key hash is in cand (candidate_keys.sql) are compared.
CREATE OR REPLACE TEMP TABLE dups AS
WITH keyed AS (
    SELECT e.eid, e.file_id, e.session_id, e.event_id, e.kind, e.call_id, e.tool, d.text,
           e.cjk_chars, e.other_chars, e.tokens
    FROM events e LEFT JOIN event_details d USING (eid)
    WHERE e.event_id IS NOT NULL AND hash(e.session_id, e.event_id) IN (SELECT key_hash FROM cand)
),
firsts AS (
    SELECT *, min(eid) OVER (PARTITION BY session_id, event_id, kind, call_id, tool, text,
                                          cjk_chars, other_chars, tokens) AS kept_eid
    FROM keyed
)
SELECT eid, kept_eid FROM firsts WHERE eid <> kept_eid AND file_id = $file_id
