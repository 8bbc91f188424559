-- What the corpus search's index can answer of some words (explorer.search.words): the
-- words case folded as the index folds texts (/*FOLD*/), their runs of $term (words and
-- symbol runs), whether the words begin and end inside a run, whether they are one run and
-- nothing else, and whether they are all $caseless characters.
SELECT regexp_extract_all(folded, $term) AS runs,
       regexp_matches(folded, '^(?:' || $term || ')') AS open_left,
       regexp_matches(folded, '(?:' || $term || ')$') AS open_right,
       regexp_full_match(folded, $term) AS whole,
       regexp_full_match(text, '(?:' || $caseless || ')+') AS caseless
FROM (SELECT text, /*FOLD*/ AS folded FROM (SELECT $words AS text))
