-- Events of the file just imported that repeat an event already kept in their session
-- (same event_id and the same kind, call_id, tool, text, chars, cjk, tokens): the first
-- row in file order is kept (FORMAT.md). Only rows whose key hash is in cand
-- (candidate_keys.sql) are compared, in full.
CREATE OR REPLACE TEMP TABLE dups AS
WITH keyed AS (
    SELECT eid, file_id, session_id, event_id, kind, call_id, tool, text, chars, cjk, tokens
    FROM events
    WHERE event_id IS NOT NULL AND hash(session_id, event_id) IN (SELECT key_hash FROM cand)
),
firsts AS (
    SELECT *, min(eid) OVER (PARTITION BY session_id, event_id, kind, call_id, tool, text,
                                          chars, cjk, tokens) AS kept_eid
    FROM keyed
)
SELECT eid, kept_eid FROM firsts WHERE eid <> kept_eid AND file_id = $file_id
