-- The sessions whose events' text holds some words, found through the corpus search's
-- index (explorer.session.corpus_search; the same rows as corpus_text_search.sql), among the
-- events of the import positions $low..$high. $runs are the words' runs, each matched
-- against the vocabulary as $modes says ('exact', 'prefix': a word that begins with it,
-- 'suffix': ends with it, 'contains'); the candidates are the events holding a term of
-- every run (a word or a symbol run: a bit each, at most 63 runs; bit_or is half the CPU of
-- count(DISTINCT)); /*VERIFIED*/ keeps them all (the index's answer is the match) or those
-- whose text matches the words (as a literal, case-insensitive RE2 pattern, or contains()
-- of the words when they have no case), as explorer.search.words decides, of the
-- candidates kept: all, or when there are more than $most, those from import position
-- $first on (the bounded flag says so; so are the postings read when the words' terms have
-- more than $postings). Per session: its matching events and the first as (seq, sub, eid).
-- Postings of events since forgotten drop out in the join with events.
WITH wanted AS (
    SELECT i, $runs[i] AS run, $modes[i] AS mode FROM range(1, len($runs) + 1) r(i)
), matched AS (
    SELECT w.i, t.term_id
    FROM search_terms t
    JOIN wanted w ON CASE w.mode WHEN 'exact' THEN t.term = w.run
                                 WHEN 'prefix' THEN starts_with(t.term, w.run)
                                 WHEN 'suffix' THEN ends_with(t.term, w.run)
                                 ELSE contains(t.term, w.run) END
), posted AS (
    SELECT count(*) AS n FROM search_postings p JOIN matched m USING (term_id)
    WHERE p.eid BETWEEN $low AND $high
), candidates AS (
    -- more postings than $postings: only those from import position $first on are read
    SELECT p.eid
    FROM search_postings p
    JOIN matched m USING (term_id), posted
    WHERE p.eid BETWEEN $low AND $high AND (posted.n <= $postings OR p.eid >= $first)
    GROUP BY p.eid
    HAVING bit_or(1::UBIGINT << (m.i - 1)) = (1::UBIGINT << len($runs)) - 1
), counted AS (
    SELECT count(*) AS n FROM candidates
), kept AS (
    -- more candidates than $most: only those from import position $first on are kept
    SELECT c.eid FROM candidates c, counted WHERE counted.n <= $most OR c.eid >= $first
), verified AS (
    /*VERIFIED*/
), sessions AS (
    SELECT e.session_id, count(*) AS events, min((e.seq, e.sub, e.eid)) AS first
    FROM verified v
    JOIN events e USING (eid)
    GROUP BY e.session_id
)
-- one row at least: whether the candidates were bounded (no session when none is found)
SELECT s.session_id, s.events, s.first, b.bounded
FROM (SELECT counted.n > $most OR posted.n > $postings AS bounded FROM counted, posted) b
LEFT JOIN sessions s ON true
