-- The sessions whose events' text holds some words, case folded (the window's corpus search,
-- explorer.session.corpus_search): per session its matching events, the first of them
-- (seq, sub, kind, call_id) and that text; the sessions with the most matches first, at most
-- $limit. $pattern is the words quoted as a literal, case-insensitive RE2 pattern
-- ((?i)\Q…\E: five times faster than lower(text), which copies every text). A full scan
-- of the texts: benchmarks/bench_corpus_search.py measures it.
WITH hits AS (
    SELECT e.session_id, e.seq, e.sub, e.kind, e.call_id, d.text
    FROM event_details d
    JOIN events e USING (eid)
    WHERE d.text IS NOT NULL AND regexp_matches(d.text, $pattern)
)
SELECT session_id, count(*) AS events,
       arg_min(seq, (seq, sub)) AS seq, arg_min(sub, (seq, sub)) AS sub,
       arg_min(kind::VARCHAR, (seq, sub)) AS kind, arg_min(call_id, (seq, sub)) AS call_id,
       arg_min(text, (seq, sub)) AS text
FROM hits
GROUP BY session_id
ORDER BY events DESC, session_id
LIMIT $limit
