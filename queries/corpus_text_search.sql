-- The sessions whose events' text holds some words, case folded (the window's corpus search,
-- explorer.session.corpus_search): per session its matching events, the first of them
-- (seq, sub, kind, call_id) and that text; the sessions with the most matches first, at most
-- $limit. /*MATCH*/ tests a text d.text: the words quoted as a literal, case-insensitive RE2
-- pattern ((?i)\Q…\E: five times faster than lower(text), which copies every text), or
-- contains() for words without case. A scan of the texts from import position $first on
-- (0: every text, what the index is tested against; the last ones for the words the index
-- cannot narrow): benchmarks/bench_corpus_search.py measures it. The first match is read
-- by its eid (arg_min of a column skips its NULLs: a call_id would come from another event).
WITH sessions AS (
    SELECT e.session_id, count(*) AS events, arg_min(e.eid, (e.seq, e.sub, e.eid)) AS eid
    FROM event_details d
    JOIN events e USING (eid)
    WHERE d.eid >= $first AND d.text IS NOT NULL AND /*MATCH*/
    GROUP BY e.session_id
    ORDER BY events DESC, e.session_id
    LIMIT $limit
)
SELECT s.session_id, s.events, e.seq, e.sub, e.kind::VARCHAR AS kind, e.call_id, d.text
FROM sessions s
JOIN events e USING (eid)
JOIN event_details d USING (eid)
ORDER BY s.events DESC, s.session_id
