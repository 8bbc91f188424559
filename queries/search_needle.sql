-- What the corpus search's index can answer of some words (explorer.search.words): the
-- words case folded as the index folds texts (/*FOLD*/), their runs of $token, whether
-- the words begin and end inside a run, and whether they are one run and nothing else.
SELECT regexp_extract_all(folded, $token) AS runs,
       regexp_matches(folded, '^(?:' || $token || ')') AS open_left,
       regexp_matches(folded, '(?:' || $token || ')$') AS open_right,
       regexp_full_match(folded, $token) AS whole
FROM (SELECT /*FOLD*/ AS folded FROM (SELECT $words AS text))
