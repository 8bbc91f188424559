-- The sessions whose events' text holds some words, case folded, among the texts of the
-- import positions $low..$high (the window's corpus search, explorer.session.corpus_search):
-- per session its matching events and the first of them as (seq, sub, eid), every session
-- (the search adds up its steps, then lists the most matching). /*MATCH*/ tests a text
-- d.text: the words quoted as a literal, case-insensitive RE2 pattern ((?i)\Q…\E: five
-- times faster than lower(text), which copies every text), or contains() for words without
-- case. A scan: of every text (what the index is tested against), of the last ones for the
-- words the index cannot narrow, then of the older ones step by step;
-- benchmarks/bench_corpus_search.py measures it.
SELECT e.session_id, count(*) AS events, min((e.seq, e.sub, e.eid)) AS first
FROM event_details d
JOIN events e USING (eid)
WHERE d.eid BETWEEN $low AND $high AND d.text IS NOT NULL AND /*MATCH*/
GROUP BY e.session_id
